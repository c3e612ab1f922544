"""Strategy: named policies, exact analysis of a turn under one, and whole simulated games.

- :mod:`.policies`: the optimum and simple heuristics as engine policies;
- :mod:`.analysis`: a turn's exact score distribution under a policy;
- :mod:`.simulate`: turns with real random dice;
- :mod:`.games`: whole games of 2 to 5 players, with each seat's Wilson interval.
"""
