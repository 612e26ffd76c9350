"""Steamfunkateers (seed 004, rules page 2): pools that count sixes, Vigor, contests to three.

The game module is `tabletop.rules.games.steamfunkateers.game.STEAMFUNKATEERS`; the rules decisions,
each with the sentence of the page it rests on, are in docs/rules-steamfunkateers.md.
"""
