"""Match formats: series of games played by a fixed set of programs under one seed.

``mahjong`` plays the 384-hand competition match of seed 003 §4.1 (rounds of four hands on one
wall, rotating seating orders, an A/B layout); ``stats`` holds the confidence intervals every
format reports.
"""
