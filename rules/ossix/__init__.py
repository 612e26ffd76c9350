"""OS-SIX at the table: action rolls, Luck Points, Strain, pushing your luck and GM rolls.

The game master runs the story; this package keeps the dice and the bookkeeping. `OS_SIX` in
`rules.ossix.game` is the game module the registry finds.
"""
