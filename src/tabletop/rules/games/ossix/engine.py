"""OS-SIX's engine: commands in, checked events out, folded into one `State`.

Every refusal is an InvalidCommand naming the field, or an IllegalMove naming the rule (the
heading of the seed's section it comes from). The dice arrive as a `roll` command whose
`values` are the dice of the throw, read from the tray or typed by the game master.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from tabletop.rules.games.errors import IllegalMove, InvalidCommand, plain, quote
from tabletop.rules.games.game import EventLog, command_handler

from . import poker
from .duel import DuelStep, pool_change, resolved
from .events import Event, EventKind
from .outcomes import Critical, Outcome
from .poker import ACTIONS, ODD_DOLLAR, TIES, VARIANTS, Phase, Poker
from .state import (
    CARRYING_CAPACITY,
    MAX_LUCK,
    MAX_STRAIN,
    Character,
    PendingKind,
    State,
)
from .view import pending_words, poker_words

ATTRIBUTES: Final = ("brawn", "agility", "mind", "will", "none")
LUCK_USES: Final = ("bonus", "upgrade", "max_damage", "reduce_damage", "reroll")
GM_ROLLS: Final = ("d2", "d3", "d6", "2d6", "3d6", "morale", "behaviour")
OPTIONS: Final[dict[str, Any]] = {
    "starting_luck": 2,
    "luck_after_long_rest": False,
    "push_needs_a_failure": True,
    "critical_failure_strain_stacks": False,
    "second_chance_after_long_rest": False,
    "poker_variant": "draw",
    "poker_ante": 1,
    "poker_minimum_raise": True,
    "poker_ties": "values",
    "poker_odd_dollar": "left_of_dealer",
    "poker_open": False,
}
OPTION_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "poker_variant": VARIANTS,
    "poker_ties": TIES,
    "poker_odd_dollar": ODD_DOLLAR,
}
# What may be done while a hand of poker is being played: the hand itself, and bookkeeping
# that calls for no dice ("the story bouncing back and forth" happens between hands).
DURING_A_HAND: Final = frozenset(
    {"ante", "bet", "draw", "roll", "poker_hand", "poker_leave", "poker_end", "poker_start"}
    | {"award_luck", "strain", "load"}
)
MAX_STAKE = 1_000_000
CARRY_WITHOUT_CONTAINER: Final = 4  # "to carry more than four normal-sized items"
DOING: Final = {
    "action": "call an action roll",
    "push": "push your luck",
    "gm_roll": "call a GM roll",
    "duel": "start a duel",
    "duel_end": "end a duel",
    "long_rest": "take a long rest",
    "spend_luck": "burn a Luck Point",
    "help": "help a roll",
    "panic": "enter a Panic Roll",
}


def score_action(values: Sequence[int], pool: int) -> tuple[Outcome, Critical]:
    """An action roll's outcome and critical, from its dice and its (signed) pool.

    "note the highest number rolled"; at disadvantage (pool 0 or less) "take the lowest"."""
    disadvantage = pool <= 0
    result = min(values) if disadvantage else max(values)
    outcome = (
        Outcome.COMPLETE if result == 6 else (Outcome.PARTIAL if result >= 4 else Outcome.FAILURE)
    )
    ones = values.count(1)
    if max(values) <= 3 and ones > 1:
        return outcome, Critical.FAILURE
    if len(values) == 1 and values[0] == 1:
        return outcome, Critical.FAILURE
    if not disadvantage and values.count(6) > 1:
        return outcome, Critical.SUCCESS
    return outcome, Critical.NONE


def score_gm_roll(kind: str, values: Sequence[int], morale: int | None) -> tuple[int, str]:
    """A GM roll's result and what it means (Dice Notation, NPC Behavior and Morale)."""
    die = values[0]
    if kind == "d3":
        return (die + 1) // 2, ""
    if kind == "d2":
        return (1 if die <= 3 else 2), ""
    if kind == "behaviour":
        meaning = (
            "openly hostile or standoffish"
            if die <= 2
            else "cautious or reticent"
            if die <= 4
            else "friendly and helpful"
        )
        return die, meaning
    total = sum(values)
    if kind == "morale":
        broken = morale is not None and total > morale
        return total, "demoralized: surrenders or runs" if broken else "holds"
    return total, ""


def _int(
    command: Mapping[str, Any], key: str, low: int, high: int, default: int | None = None
) -> int:
    value = command.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidCommand(
            f"{key}: expected a whole number {low} to {high}, got {quote(value)}", key
        )
    return value


def _bool(command: Mapping[str, Any], key: str) -> bool:
    value = command.get(key, False)
    if not isinstance(value, bool):
        raise InvalidCommand(f"{key}: expected true or false, got {quote(value)}", key)
    return value


def _choice(command: Mapping[str, Any], key: str, choices: Sequence[str]) -> str:
    value = command.get(key)
    if value not in choices:
        raise InvalidCommand(
            f"{key}: expected one of {', '.join(choices)}, got {quote(value)}", key
        )
    return str(value)


class Game(EventLog[State, Event]):
    """One table's OS-SIX: its events and the state folded from them."""

    def __init__(self, events: Sequence[Event] = ()) -> None:
        super().__init__(State(), events)

    def execute(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        """The events `command` causes, folded into the state; the state is unchanged on error."""
        return self._record(self._decide(command))

    # -- deciding --------------------------------------------------------------------------

    def _decide(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        cmd, handler = command_handler(command, _HANDLERS, "OS-SIX", self._state)
        if cmd in ("new_game", "end_game"):
            return handler(self, command)
        state = self._state
        table = state.poker
        if table is not None and table.in_hand and cmd not in DURING_A_HAND:
            what = DOING.get(cmd, cmd.replace("_", " "))
            raise IllegalMove(
                f"cannot {what} during a hand of poker: finish the hand (or end the poker) first",
                "gambling",
            )
        pending = state.pending
        if (
            pending is not None
            and pending.kind is PendingKind.SPEND
            and not (cmd == "spend_luck" and command.get("player") == pending.player)
        ):
            raise IllegalMove(
                f"{pending.player} must use the pushed Luck Point first",
                "pushing your luck",
            )
        return handler(self, command)

    def _end_game(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        return (Event(EventKind.ENDED),)

    def _new_game(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        if not self._state.over:
            raise IllegalMove("a game is being played: end the game first", "game")
        players = command.get("players")
        if not isinstance(players, list) or not players:
            raise InvalidCommand("players: expected a list of one name or more", "players")
        names = [p.get("name") if isinstance(p, dict) else p for p in players]
        for index, name in enumerate(names):
            if not isinstance(name, str) or not name.strip():
                raise InvalidCommand(f"players[{index}]: expected a name", f"players[{index}]")
        if len(set(names)) != len(names):
            raise InvalidCommand("players: two players have the same name", "players")
        raw = command.get("options") or {}
        if not isinstance(raw, Mapping):
            raise InvalidCommand("options: expected a table of options", "options")
        options = dict(OPTIONS)
        for key, value in raw.items():
            if key not in OPTIONS:
                raise InvalidCommand(f"options.{key}: OS-SIX has no such option", f"options.{key}")
            if type(value) is not type(OPTIONS[key]):
                raise InvalidCommand(
                    f"options.{key}: expected {type(OPTIONS[key]).__name__}", f"options.{key}"
                )
            options[key] = value
        for key, choices in OPTION_CHOICES.items():
            if options[key] not in choices:
                raise InvalidCommand(
                    f"options.{key}: expected one of {', '.join(choices)}", f"options.{key}"
                )
        if not 1 <= options["poker_ante"] <= MAX_STAKE:
            raise InvalidCommand("options.poker_ante: expected $1 or more", "options.poker_ante")
        if not 0 <= options["starting_luck"] <= MAX_LUCK:
            raise InvalidCommand("options.starting_luck: expected 0 to 3", "options.starting_luck")
        return (
            Event(
                EventKind.STARTED,
                players=tuple(str(n) for n in names),
                options=tuple(sorted(options.items())),
            ),
        )

    def _player(self, command: Mapping[str, Any], key: str = "player") -> Character:
        name = command.get(key)
        found = self._state.character(name) if isinstance(name, str) else None
        if found is None:
            shown = plain(name) if isinstance(name, str) else quote(name)
            raise IllegalMove(f"there is no player named {shown} at this table", "players")
        return found

    def _idle(self, what: str) -> None:
        pending = self._state.pending
        if pending is not None:
            raise IllegalMove(f"cannot {what} now: {pending_words(pending)} first", "waiting")

    def _action(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        self._idle("call an action roll")
        me = self._player(command)
        if me.incapacitated:
            raise IllegalMove(f"{me.name} is incapacitated (12 Strain)", "strain")
        attribute = _choice(command, "attribute", ATTRIBUTES)
        score = _int(command, "score", 0, 10, 0 if attribute == "none" else None)
        skill = _bool(command, "skill")
        bonus = _int(command, "bonus", 0, 10, 0)
        penalty = _int(command, "penalty", 0, 10, 0)
        high_pressure = _bool(command, "high_pressure")
        before: tuple[Event, ...] = ()
        step = ""
        if command.get("duel_step") is not None:
            step = _choice(command, "duel_step", [s.value for s in DuelStep])
            before = self._duel_resolution(me)
            duel = self._state.duel
            assert duel is not None
            if before:
                duel = resolved(duel, Outcome(before[0].text))
            if DuelStep(step) not in duel.allowed:
                allowed = " or ".join(s.value.replace("_", " ") for s in duel.allowed)
                raise IllegalMove(
                    f"the duel's next roll is the {allowed}, not the {step.replace('_', ' ')}",
                    "quick-draw duels",
                )
            more, less = pool_change(duel, DuelStep(step))
            bonus, penalty = bonus + more, penalty + less
        if me.bonus_next:
            bonus += 1  # "gain a Bonus on your next roll"
        if me.overloaded and attribute in ("brawn", "agility"):
            penalty += 1  # "all Agility and Brawn tests will suffer a Penalty"
        pool = score + int(skill) + bonus - penalty
        called = Event(
            EventKind.ROLL_CALLED,
            me.name,
            text=attribute,
            number=pool,
            flag=high_pressure,
            target=step or None,
        )
        return (*before, called)

    def _duel_resolution(self, me: Character) -> tuple[Event, ...]:
        """The called duel step's final result (its own roll, after any Luck Point spent on
        it), if it was rolled: a roll made in between is not the step's."""
        duel = self._state.duel
        if duel is None or duel.player != me.name:
            raise IllegalMove(f"{me.name} is in no duel: start one first", "quick-draw duels")
        if duel.called is None or duel.result is None:
            return ()
        return (Event(EventKind.DUEL_RESOLVED, me.name, text=duel.result.value),)

    def _duel(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        self._idle("start a duel")
        me = self._player(command)
        if self._state.duel is not None:
            raise IllegalMove(f"{self._state.duel.player} is already in a duel", "quick-draw duels")
        if me.incapacitated:
            raise IllegalMove(f"{me.name} is incapacitated (12 Strain)", "strain")
        opponent = command.get("opponent", "the opponent")
        if not isinstance(opponent, str) or not opponent.strip():
            raise InvalidCommand("opponent: expected the opponent's name", "opponent")
        pistols = _bool(command, "two_pistols")
        return (Event(EventKind.DUEL_STARTED, me.name, target=opponent.strip()[:60], flag=pistols),)

    def _duel_end(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        self._idle("end the duel")
        duel = self._state.duel
        if duel is None:
            raise IllegalMove("no duel is being fought", "quick-draw duels")
        me = self._state.character(duel.player)
        assert me is not None
        outcome = command.get("outcome", "the duel is over")
        if not isinstance(outcome, str):
            raise InvalidCommand("outcome: expected words", "outcome")
        ended = Event(EventKind.DUEL_ENDED, me.name, text=outcome.strip()[:200] or "over")
        return (*self._duel_resolution(me), ended)

    def _awaited_action(self, player: Character, what: str, rule: str) -> None:
        pending = self._state.pending
        if (
            pending is None
            or pending.kind is not PendingKind.ACTION
            or pending.player != player.name
        ):
            raise IllegalMove(f"{what} only before {player.name}'s action roll is thrown", rule)

    def _help(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        helper = self._player(command, "helper")
        target = self._player(command)
        self._awaited_action(target, "help", "helping")
        if helper.name == target.name:
            raise IllegalMove("a character cannot help their own roll", "helping")
        if helper.incapacitated:
            raise IllegalMove(f"{helper.name} is incapacitated (12 Strain)", "strain")
        assert self._state.pending is not None
        if self._state.pending.helped:
            raise IllegalMove("only one Bonus per action roll by receiving help", "helping")
        return (
            Event(EventKind.HELPED, helper.name, target=target.name),
            *self._strain_events(helper, 1, "help"),
        )

    def _strain_events(self, who: Character, change: int, reason: str) -> tuple[Event, ...]:
        new = max(0, min(MAX_STRAIN, who.strain + change))
        out = [Event(EventKind.STRAIN_CHANGED, who.name, text=reason, number=new - who.strain)]
        if new >= MAX_STRAIN and who.strain < MAX_STRAIN:
            out.append(Event(EventKind.INCAPACITATED, who.name))
        return tuple(out)

    def _spend_luck(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        me = self._player(command)
        use = _choice(command, "use", LUCK_USES)
        if me.luck < 1:
            raise IllegalMove(f"{me.name} has no Luck Point to burn", "luck points")
        pending = self._state.pending
        forced = pending is not None and pending.kind is PendingKind.SPEND
        last = me.last
        if use == "bonus":
            self._awaited_action(me, "a Luck Point buys a Bonus", "luck points")
        elif pending is not None and not forced:
            raise IllegalMove(
                f"cannot spend Luck for {use} while waiting for {pending.kind.value}", "waiting"
            )
        elif use == "upgrade" and (last is None or last.outcome is not Outcome.PARTIAL):
            raise IllegalMove(
                "only a partial success can be turned into a complete success", "luck points"
            )
        elif use == "max_damage" and (
            last is None or last.outcome is not Outcome.COMPLETE or last.max_damage
        ):
            raise IllegalMove("max damage only on a complete success, once", "luck points")
        elif use == "reroll" and (last is None or last.outcome is not Outcome.FAILURE):
            raise IllegalMove("only a failed roll can be re-rolled", "luck points")
        elif use == "reroll" and not forced and self._rested_since(me):
            raise IllegalMove(
                f"{me.name}'s failed roll came before the long rest: a Luck Point re-rolls a "
                "failure since the last long rest",
                "luck points",
            )
        return (Event(EventKind.LUCK_SPENT, me.name, text=use),)

    def _award_luck(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        if command.get("player") == "all":
            return tuple(
                Event(EventKind.LUCK_GAINED, c.name, text="award")
                for c in self._state.characters
                if c.luck < MAX_LUCK
            )
        me = self._player(command)
        if me.luck >= MAX_LUCK:
            raise IllegalMove(
                f"{me.name} already banks three Luck Points", "gaining more luck points"
            )
        return (Event(EventKind.LUCK_GAINED, me.name, text="award"),)

    def _push(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        self._idle("push your luck")
        me = self._player(command)
        if me.luck > 0:
            raise IllegalMove(
                f"{me.name} still has Luck Points: burn one instead", "pushing your luck"
            )
        if me.strain >= MAX_STRAIN:
            raise IllegalMove(f"{me.name} is at 12 Strain", "pushing your luck")
        failed = me.last is not None and me.last.outcome is Outcome.FAILURE
        if self._state.options.get("push_needs_a_failure", True) and not failed:
            # "There are situations when a player is out of luck points, fails a crucial
            # action roll, but really needs a second chance to avoid dire consequences."
            raise IllegalMove(
                f"{me.name}'s latest action roll did not fail: a player pushes their luck "
                "after failing a crucial action roll",
                "pushing your luck",
            )
        if failed and self._rested_since(me):
            raise IllegalMove(
                f"{me.name}'s failed roll came before the long rest: a push is a second chance "
                "for a failure since the last long rest",
                "pushing your luck",
            )
        return (Event(EventKind.PUSHED, me.name, number=me.pushes + 1),)

    def _rested_since(self, me: Character) -> bool:
        """Whether a long rest came between `me`'s latest action roll and now, and the table
        keeps a push and a Luck Point's re-roll to a failure since the last long rest (the
        option `second_chance_after_long_rest` reads the seed otherwise)."""
        return me.rested and not self._state.options.get("second_chance_after_long_rest", False)

    def _roll(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        pending = self._state.pending
        table = self._state.poker
        if pending is None and table is not None and table.awaited_dice() is not None:
            return self._poker_roll(table, command)
        if pending is None and table is not None and table.in_hand:
            raise IllegalMove(f"no dice are awaited: {poker_words(table)}", "waiting")
        if pending is None or pending.dice == 0:
            what = "nothing" if pending is None else pending.kind.value
            raise IllegalMove(f"no dice are awaited (waiting for {what})", "waiting")
        values = command.get("values")
        if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in values
        ):
            raise InvalidCommand(
                f"values: expected a list of dice 1 to 6, got {quote(values)}", "values"
            )
        if len(values) != pending.dice:
            raise InvalidCommand(
                f"values: expected {pending.dice} dice, got {len(values)}", "values"
            )
        who = command.get("player", pending.player)
        if who != pending.player:
            raise IllegalMove(f"this throw is {pending.player or 'the GM'}'s", "waiting")
        dice = tuple(values)
        if pending.kind is PendingKind.GM_ROLL:
            result, meaning = score_gm_roll(pending.gm_roll, dice, pending.morale)
            return (
                Event(
                    EventKind.GM_ROLLED,
                    text=pending.gm_roll,
                    values=dice,
                    number=result,
                    target=meaning,
                ),
            )
        assert pending.player is not None
        me = self._state.character(pending.player)
        assert me is not None
        if pending.kind is PendingKind.REDUCE:
            return (Event(EventKind.DAMAGE_REDUCED, me.name, number=dice[0]),)
        if pending.kind is PendingKind.PUSH:
            pushed = self._strain_events(me, sum(dice), "push")
            if me.strain + sum(dice) < MAX_STRAIN:
                pushed += (Event(EventKind.LUCK_GAINED, me.name, text="push"),)
            return pushed
        outcome, critical = score_action(dice, pending.pool)
        out: tuple[Event, ...] = (
            Event(
                EventKind.ROLLED, me.name, target=critical.value, text=outcome.value, values=dice
            ),
        )
        strain = 0
        if outcome is Outcome.FAILURE and pending.high_pressure:
            strain += 1
        if critical is Critical.FAILURE:
            stacks = bool(self._state.options.get("critical_failure_strain_stacks"))
            strain = strain + 1 if stacks else 1
        if critical is Critical.SUCCESS:
            strain = -1 if me.strain > 0 else 0
        if strain:
            out += self._strain_events(me, strain, critical.value or outcome.value)
        return out

    def _panic(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        pending = self._state.pending
        if pending is None or pending.kind is not PendingKind.PANIC:
            raise IllegalMove("no Panic Roll is awaited", "roll results")
        if command.get("player", pending.player) != pending.player:
            raise IllegalMove(f"the Panic Roll awaited is {pending.player}'s", "roll results")
        outcome = command.get("outcome")
        if not isinstance(outcome, str) or not outcome.strip():
            raise InvalidCommand("outcome: expected the Panic Roll's outcome in words", "outcome")
        return (Event(EventKind.PANIC_ENTERED, pending.player, text=outcome.strip()[:200]),)

    def _strain(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        me = self._player(command)
        change = _int(command, "change", -MAX_STRAIN, MAX_STRAIN)
        reason = command.get("reason", "game master")
        if not isinstance(reason, str):
            raise InvalidCommand("reason: expected words", "reason")
        if change == 0:
            raise InvalidCommand("change: expected a change other than 0", "change")
        return self._strain_events(me, change, reason[:200] or "game master")

    def _gm_roll(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        self._idle("call a GM roll")
        kind = _choice(command, "kind", GM_ROLLS)
        morale = _int(command, "morale", 2, 12) if kind == "morale" else None
        return (Event(EventKind.GM_ROLL_CALLED, text=kind, number=morale),)

    def _load(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        me = self._player(command)
        brawn = _int(command, "brawn", 0, 5)
        items = command.get("items")
        if (
            not isinstance(items, (int, float))
            or isinstance(items, bool)
            or items < 0
            or (items * 4) % 1
        ):
            raise InvalidCommand(
                "items: expected normal items carried, in quarters (e.g. 10.25)", "items"
            )
        quarters = int(items * 4)
        # Said by the GM, who sees the character sheet: false for a character with no bag.
        container = command.get("container", True)
        if not isinstance(container, bool):
            raise InvalidCommand(f"container: expected true or false, got {quote(container)}")
        if not container and quarters > 4 * CARRY_WITHOUT_CONTAINER:
            # "A character must have a backpack, duffel bag, sack, suitcase, or other portable
            # container to carry more than four normal-sized items."
            raise IllegalMove(
                f"{me.name} has no container: without one a character carries at most "
                f"{CARRY_WITHOUT_CONTAINER} normal-sized items",
                "carrying capacity",
            )
        if quarters > 8 * CARRYING_CAPACITY[brawn]:
            raise IllegalMove(
                f"{me.name} cannot carry more than twice their capacity "
                f"({2 * CARRYING_CAPACITY[brawn]} items at Brawn {brawn})",
                "carrying capacity",
            )
        return (Event(EventKind.LOAD_SET, me.name, number=brawn, values=(quarters,)),)

    def _long_rest(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        self._idle("take a long rest")
        if command.get("player", "all") == "all":
            rested = self._state.characters
        else:
            rested = (self._player(command),)
        out = [Event(EventKind.LONG_REST, players=tuple(c.name for c in rested))]
        if self._state.options.get("luck_after_long_rest"):
            out += [
                Event(EventKind.LUCK_GAINED, c.name, text="long rest")
                for c in rested
                if c.luck < MAX_LUCK
            ]
        return tuple(out)

    # -- dice poker ("Additional Rules", Gambling) -------------------------------------------

    def _poker(self) -> Poker:
        table = self._state.poker
        if table is None:
            raise IllegalMove("no poker is being played: start a game of poker first", "gambling")
        return table

    def _settled(self, events: tuple[Event, ...]) -> tuple[Event, ...]:
        """`events` checked by folding them (the poker functions refuse what the seed forbids),
        and, when they decide the hand, the pots paid out and the deal passed on."""
        state = self._state
        for event in events:
            state = state.apply(event)
        table = state.poker
        if table is None:
            return events
        out = list(events)
        before = self._state.poker
        if table.phase is Phase.REVEAL and (before is None or before.phase is not Phase.REVEAL):
            out.append(_revealed(table))
        if table.phase is Phase.SHOWDOWN:
            awards, carry = poker.settle(table)
            for award in awards:
                out.append(
                    Event(
                        EventKind.POT_WON,
                        award.player,
                        target=award.pot,
                        text=award.hand,
                        number=award.amount,
                    )
                )
                table = poker.paid(table, award.player, award.amount)
            out.append(Event(EventKind.HAND_ENDED, number=carry, players=poker.busted(table)))
            table = poker.end_hand(table, carry)
        if not table.in_hand and len(table.seats) < 2:
            out.append(self._ended(table, "fewer than two players have money on the table"))
        return tuple(out)

    @staticmethod
    def _ended(table: Poker, why: str) -> Event:
        return Event(
            EventKind.POKER_ENDED,
            text=why,
            players=table.names,
            values=tuple(s.money for s in table.seats),
            number=table.carry,
        )

    def _poker_start(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        self._idle("start a game of poker")
        if self._state.poker is not None:
            raise IllegalMove("a game of poker is on: end it first", "gambling")
        if self._state.duel is not None:
            raise IllegalMove(f"{self._state.duel.player}'s duel comes first", "gambling")
        seated = command.get("players")
        if not isinstance(seated, list) or len(seated) < 2:
            raise InvalidCommand(
                "players: expected two players or more, clockwise, each with the money "
                'they put on the table: [{"name": "Ana", "money": 20}, ...]',
                "players",
            )
        names: list[str] = []
        money: list[int] = []
        for index, seat in enumerate(seated):
            where = f"players[{index}]"
            name = seat.get("name") if isinstance(seat, Mapping) else None
            if not isinstance(name, str) or not name.strip() or len(name) > 40:
                raise InvalidCommand(f"{where}.name: expected a name (40 letters at most)", where)
            if name.strip() in names:
                raise InvalidCommand(f"{where}.name: {plain(name)} is seated twice", where)
            assert isinstance(seat, Mapping)
            names.append(name.strip())
            money.append(_int(seat, "money", 1, MAX_STAKE))
        options = self._state.options
        ante = _int(command, "ante", 1, MAX_STAKE, int(options.get("poker_ante", 1)))
        variant = str(command.get("variant", options.get("poker_variant", "draw")))
        if variant not in VARIANTS:
            raise InvalidCommand(f"variant: expected one of {', '.join(VARIANTS)}", "variant")
        dealer = command.get("dealer", names[0])
        if dealer not in names:
            raise InvalidCommand(
                f"dealer: expected one of the players, got {quote(dealer)}", "dealer"
            )
        played_open = command.get("open", bool(options.get("poker_open", False)))
        if not isinstance(played_open, bool):
            raise InvalidCommand(
                f"open: expected true (every hand thrown in the tray) or false (concealed "
                f"hands), got {quote(played_open)}",
                "open",
            )
        house = (
            ("minimum_raise", bool(options.get("poker_minimum_raise", True))),
            ("odd_dollar", str(options.get("poker_odd_dollar", "left_of_dealer"))),
            ("open", played_open),
            ("ties", str(options.get("poker_ties", "values"))),
        )
        started = Event(
            EventKind.POKER_STARTED,
            players=tuple(names),
            values=tuple(money),
            number=ante,
            text=variant,
            target=str(dealer),
            options=house,
        )
        return (started,)

    def _ante(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        table = self._poker()
        poker.begin_hand(table)  # refuses a hand in play, or fewer than two with money
        dealer = table.seats[table.dealer].name
        begun = Event(
            EventKind.HAND_STARTED, number=table.hand + 1, target=dealer, values=poker.antes(table)
        )
        return self._settled((begun,))

    def _seat_name(self, table: Poker, command: Mapping[str, Any]) -> str:
        name = command.get("player")
        if not isinstance(name, str) or table.seat(name) is None:
            shown = plain(name) if isinstance(name, str) else quote(name)
            raise IllegalMove(f"{shown} is not at the poker table", "gambling")
        return name

    def _bet(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        table = self._poker()
        name = self._seat_name(table, command)
        action = _choice(command, "action", ACTIONS)
        # A bet of $0 is refused by the rule ("the least bet is $1"), not as a bad field.
        amount = _int(command, "amount", 0, MAX_STAKE) if action in ("bet", "raise") else None
        return self._settled((Event(EventKind.POKER_BET, name, text=action, number=amount),))

    def _draw(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        table = self._poker()
        name = self._seat_name(table, command)
        kept = command.get("keep")
        if not isinstance(kept, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in kept
        ):
            raise InvalidCommand(
                f"keep: expected the dice kept (1 to 6), got {quote(kept)}", "keep"
            )
        concealed = not table.open
        return self._settled(
            (Event(EventKind.POKER_KEPT, name, values=tuple(kept), flag=concealed),)
        )

    def _poker_hand(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        """A concealed hand entered: the deal's dice, or the whole hand after the draw."""
        table = self._poker()
        name = command.get("player")
        if not isinstance(name, str) or table.seat(name) is None:
            shown = plain(name) if isinstance(name, str) else quote(name)
            raise IllegalMove(f"{shown} is not in this hand", poker.RULE_CONCEALED)
        values = command.get("values")
        count = poker.hand_size(table)
        if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in values
        ):
            raise InvalidCommand(f"values: {name}'s hand needs {count} dice, 1-6", "values")
        dice = tuple(values)
        thrown = 0
        seat = table.seat(name)
        if table.phase is Phase.DRAW and seat is not None and seat.dice:
            thrown = poker.rethrown(table, name, dice)
        what = "draw" if table.phase is Phase.DRAW else "deal"
        entered = Event(EventKind.POKER_ENTERED, name, values=dice, text=what, number=thrown)
        return self._settled((entered,))

    def _poker_roll(self, table: Poker, command: Mapping[str, Any]) -> tuple[Event, ...]:
        awaited = table.awaited_dice()
        assert awaited is not None
        who, count, _ = awaited
        values = command.get("values")
        if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in values
        ):
            raise InvalidCommand(
                f"values: expected a list of dice 1 to 6, got {quote(values)}", "values"
            )
        if len(values) != count:
            raise InvalidCommand(f"values: expected {count} dice, got {len(values)}", "values")
        if command.get("player", who) != who:
            raise IllegalMove(f"this throw is {who}'s", "waiting")
        dice = tuple(values)
        if table.phase is Phase.REVEAL:
            seat = table.seat(who)
            assert seat is not None
            match = poker.matches(seat, dice)
            entered = " ".join(str(v) for v in seat.dice)
            shown = Event(EventKind.POKER_SHOWN, who, values=dice, flag=match, text=entered)
            return self._settled((shown,))
        if table.phase is Phase.DRAW:
            thrown = poker.rethrown(table, who, dice)
            return self._settled((Event(EventKind.POKER_DRAWN, who, values=dice, number=thrown),))
        what = "deal" if table.phase is Phase.DEAL else poker.COMMUNITY_NAMES[table.street - 1]
        return self._settled((Event(EventKind.POKER_THROWN, who, values=dice, text=what),))

    def _poker_leave(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        table = self._poker()
        name = self._seat_name(table, command)
        seat = table.seat(name)
        assert seat is not None
        return self._settled((Event(EventKind.POKER_LEFT, name, number=seat.money),))

    def _poker_end(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        table = self._poker()
        why = command.get("reason", "the game master ends the poker")
        if not isinstance(why, str):
            raise InvalidCommand("reason: expected words", "reason")
        if table.in_hand:
            table = poker.void_hand(table)  # broken off: each takes back what they put in
        return (self._ended(table, why.strip()[:200] or "the poker is over"),)


def _revealed(table: Poker) -> Event:
    """The reveal of concealed hands: every hand still in, shown with its rank."""
    live = [s for s in table.seats if s.live]
    words = "; ".join(
        f"{s.name} {' '.join(str(v) for v in s.dice)}: "
        f"{poker.best_rank(table.hand_of(s), table.ties).words()}"
        for s in live
    )
    return Event(EventKind.POKER_REVEALED, players=tuple(s.name for s in live), text=words)


# Each command's handler: the one dispatch every engine uses (tabletop.rules.games.game's
# command_handler, which refuses an unknown verb and any but new_game while no game is on).
_HANDLERS: dict[str, Callable[[Game, Mapping[str, Any]], tuple[Event, ...]]] = {
    "new_game": Game._new_game,
    "end_game": Game._end_game,
    "action": Game._action,
    "help": Game._help,
    "spend_luck": Game._spend_luck,
    "award_luck": Game._award_luck,
    "push": Game._push,
    "roll": Game._roll,
    "panic": Game._panic,
    "strain": Game._strain,
    "gm_roll": Game._gm_roll,
    "load": Game._load,
    "long_rest": Game._long_rest,
    "duel": Game._duel,
    "duel_end": Game._duel_end,
    "poker_start": Game._poker_start,
    "ante": Game._ante,
    "bet": Game._bet,
    "draw": Game._draw,
    "poker_hand": Game._poker_hand,
    "poker_leave": Game._poker_leave,
    "poker_end": Game._poker_end,
}
