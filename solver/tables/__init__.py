"""Tables on disk: the file format, where tables live, each card's turn table, the game tables.

- :mod:`.fileformat`: the envelope of every table file (sorted msgpack, SHA-256, atomic write);
- :mod:`.paths`: the committed tables of the default rules and the user's cache;
- :mod:`.turn`: a card's solved turn, ``turn-<card>.msgpack``;
- :mod:`.game`: the game of 2 to 5 players, ``game-<N>.msgpack``;
- :mod:`.profiles`: the edge of playing to win beside the table it was computed from,
  ``profiles.json``.
"""
