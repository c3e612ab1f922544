"""Words: the answers said in sentences, for the people the front ends speak to.

The library below answers with data (:mod:`solver.advice`); the command line and the web page
speak to people. What both of them say the same way lives here, one layer above the answers and
below the front ends: :mod:`.sentences`, an advice in one plain English sentence (the first line
of `sabords advise`, and the ``recommendation`` of its JSON, which the web's API returns too).
"""
