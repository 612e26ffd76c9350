"""Dice recognition: from camera frames to dice values and settled throws."""
