"""Strategy: named policies, exact analysis of a turn under one, and whole simulated games.

- :mod:`.policies`: the optimum and simple heuristics as engine policies;
- :mod:`.analysis`: a turn's exact score distribution under a policy;
- :mod:`.simulate`: turns with real random dice;
- :mod:`.duel`: whole two-player games; :mod:`.ngames`: games of three players and more.
"""
