"""Advice: what a player at the table is told, as data both front ends word.

- :mod:`.ranking`: ranked lists with ties in a fixed order;
- :mod:`.advisor`: every legal move from a position, ranked by its value;
- :mod:`.sources`: where the answers find their solutions (a tables directory);
- :mod:`.answers`: the answers of the questions a player asks, and their JSON;
- :mod:`.choices`: a player's move in the words typed at the table;
- :mod:`.play`: a turn at the table, entry by entry, the decisions graded;
- :mod:`.inputs`: the inputs a player gives, each defined once.
"""
