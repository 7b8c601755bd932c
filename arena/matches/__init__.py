"""Match formats: series of games played by a fixed set of programs under one seed.

``mahjong`` plays the 384-hand competition match of seed 003 §4.1 (rounds of four hands on one
wall, rotating seating orders, an A/B layout); ``liars_dice_series`` one liar's dice game, the
duel and the two-bot match; ``liars_dice`` tables of two to five bots (``liars_dice_human``: a
person at one); ``bulls_cows`` the 1A2B duel series; ``stats`` holds the confidence intervals
every format reports, ``frame`` the commit–reveal frame around a match's games and ``seating``
who sits where in each game. The formats import the referee, never the reverse. The benchmarks
run and time these formats; nothing here depends on them.
"""
