"""The table's web console: a room view anyone may watch and a game master's view behind a login.

`ConsoleServer` (src/tabletop/console/server.py) serves both from one MQTT subscription per
audience; `tabletop console` (src/tabletop/console/cli.py) starts it. Nothing here imports a game's
own modules: the page is drawn from the game interface's views, and the game master's forms from its
GmActions.
"""


class ConsoleError(Exception):
    """The root of the console's errors: something the person starting it can fix."""
