"""Lets `python -m tabletop` behave like the `tabletop` command."""

from tabletop.cli import main

raise SystemExit(main())
