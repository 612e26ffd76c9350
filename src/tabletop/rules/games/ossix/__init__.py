"""OS-SIX at the table: action rolls, Luck Points, Strain, pushing your luck and GM rolls, with
the quick-draw duel (`duel.py`) and dice poker (`poker.py`) of "Additional Rules".

The game master runs the story; this package keeps the dice and the bookkeeping. `OS_SIX` in
`tabletop.rules.games.ossix.game` is the game module the registry finds.
"""
