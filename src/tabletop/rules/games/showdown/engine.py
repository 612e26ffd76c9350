"""Six-Gun Showdown's engine: a command in, the events it causes out (folded), or a refusal.

A refused command changes nothing: events are gathered on the side and recorded only when the
whole command is legal. The race is decided outside (the table's reader judges touch
timestamps, `reading.judge_race`, or the game master says): the engine takes its result as a
`race` command, or a defender's `reveal` while the race is open as the defender being first.
Dice are outside too: `roll` carries the face read from the tray.

Commands (`cmd`): new_game, load, touch, reveal, reach, race, roll, reroll, keep, pass,
discard, end_game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..errors import InvalidCommand, OutOfTurn, SetupError, UnknownPlayer, plain, quote
from ..game import EventLog, Gathering, command_handler
from .decks import BULLETS, DeckError, DeckKind, RerollTarget, read_deck, split_code
from .events import (
    Discarded,
    Drew,
    Event,
    GameEnded,
    GameStarted,
    GameWon,
    Loaded,
    Passed,
    RaceDecided,
    Reached,
    ReplyOpened,
    RerollDeclined,
    Rerolled,
    Revealed,
    Rolled,
    RoundEnded,
    RoundStarted,
    ShotResolved,
    ShotsCalled,
    Touched,
)
from .model import (
    ATTACKER_SPEED_BONUS,
    DEFENDER_REVEALS,
    DISCARD_FLOOR,
    HIT_TOTAL,
    OPTION_DEFAULTS,
    OPTIONS,
    ROUNDS,
    TIE_WINDOW_MS,
    DrawError,
    LoadError,
    RoundError,
    ShootError,
    StareDownError,
)
from .race import RaceWinner, judge_race, race_words
from .state import GameState, Phase


class Game(EventLog[GameState, Event]):
    """One game: its events and the state folded from them."""

    def __init__(self, events: Iterable[Event] = ()) -> None:
        super().__init__(GameState(), events)

    def execute(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        """The events `command` causes, applied; a RulesError (nothing changed) if refused."""
        _, handler = command_handler(command, _HANDLERS, "Six-Gun Showdown", self._state)
        out = _Out(self._state)
        handler(out, command)
        return self._keep(out)


_Out = Gathering[GameState, Event]


# -- reading commands -----------------------------------------------------------------------


def _integer(command: Mapping[str, Any], key: str, low: int, high: int) -> int:
    value = command.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidCommand(
            f"{key}: expected a whole number {low} to {high}, got {quote(value)}", key
        )
    return value


def _optional_ms(command: Mapping[str, Any], key: str) -> int | None:
    value = command.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidCommand(
            f"{key}: expected milliseconds (a whole number), got {quote(value)}", key
        )
    return value


def _player(state: GameState, command: Mapping[str, Any], key: str = "player") -> str:
    name = command.get(key)
    if not isinstance(name, str):
        raise InvalidCommand(f"{key}: expected a player's name, got {quote(name)}", key)
    if name not in state.players:
        raise UnknownPlayer(
            f"there is no player named {plain(name)} at this table "
            f"(seated: {', '.join(state.players)})"
        )
    return name


def _card_id(state: GameState, player: str, value: object, where: str) -> str:
    """A card of `player`'s deck from its id (`draw-1`) or its code (`cowboy/draw-1`)."""
    if not isinstance(value, str):
        raise InvalidCommand(f"{where}: expected a card id, got {quote(value)}", where)
    deck = state.decks[player]
    split = split_code(value)
    if split is not None:
        if split[0] != deck.name:
            raise LoadError(
                f"{where}: {value} is a {split[0]} card, not from {player}'s {deck.title} deck"
            )
        value = split[1]
    if deck.card(value) is None:
        raise LoadError(f"{where}: {deck.title} has no card {plain(value)}")
    return value


# -- setting up -----------------------------------------------------------------------------


def _new_game(out: _Out, command: Mapping[str, Any]) -> None:
    if out.state.in_play:
        raise SetupError("a game is in play: end the game first")
    raw_options = command.get("options") or {}
    if not isinstance(raw_options, Mapping):
        raise InvalidCommand("options: expected a table of options", "options")
    options = dict(OPTION_DEFAULTS)
    known = {o.name: o for o in OPTIONS}
    for key, value in raw_options.items():
        option = known.get(key)
        if option is None:
            raise InvalidCommand(
                f"options.{key}: Six-Gun Showdown has no such option", f"options.{key}"
            )
        default = option.default
        if isinstance(value, bool) != isinstance(default, bool) or not isinstance(
            value, type(default)
        ):
            raise InvalidCommand(
                f"options.{key}: expected {type(default).__name__}, got {quote(value)}",
                f"options.{key}",
            )
        if option.choices and value not in option.choices:
            raise InvalidCommand(
                f"options.{key}: expected one of {', '.join(map(str, option.choices))}",
                f"options.{key}",
            )
        if isinstance(value, int) and value < 0:
            raise InvalidCommand(
                f"options.{key}: expected 0 or more, got {value}", f"options.{key}"
            )
        options[key] = value
    players = command.get("players")
    if not isinstance(players, list) or len(players) != 2:
        raise InvalidCommand("players: expected two gunslingers, each {name, deck}", "players")
    names: list[str] = []
    decks = []
    for i, raw in enumerate(players):
        at = f"players[{i}]"
        if not isinstance(raw, Mapping):
            raise InvalidCommand(f"{at}: expected {{name, deck}}", at)
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 60:
            raise InvalidCommand(f"{at}.name: expected a name of 1 to 60 characters", f"{at}.name")
        if name.strip() in names:
            raise InvalidCommand(f"{at}.name: {quote(name)} is taken", f"{at}.name")
        names.append(name.strip())
        try:
            decks.append(read_deck(raw.get("deck"), f"{at}.deck"))
        except DeckError as error:
            raise InvalidCommand(str(error), f"{at}.deck") from None
    if decks[0].name == decks[1].name:
        # Each card's code on the mat names its deck: two decks of one name could not be told apart.
        raise SetupError(f"both decks are named {decks[0].name}: give each deck its own name")
    out.add(GameStarted(tuple(names), tuple(decks), tuple(sorted(options.items()))))
    _start_round(out, 1)


def _start_round(out: _Out, number: int) -> None:
    state = out.state
    out.add(
        RoundStarted(
            number, tuple((p, min(BULLETS, len(state.available[p]))) for p in state.players)
        )
    )


def _end_game(out: _Out, command: Mapping[str, Any]) -> None:
    out.add(GameEnded())


# -- 1) load bullets ------------------------------------------------------------------------


def _load(out: _Out, command: Mapping[str, Any]) -> None:
    state = out.state
    player = _player(state, command)
    if state.phase is not Phase.LOAD:
        raise LoadError("bullets are loaded at the start of a round, before the stare down")
    if state.hands[player].loaded:
        raise LoadError(f"{player} has declared ready: the bullets stay as they are")
    raw = command.get("bullets")
    want = state.to_load[player]
    if not isinstance(raw, list):
        raise InvalidCommand(
            "bullets: expected a list of {slot, card} (or card ids for slots 1, 2, ...)", "bullets"
        )
    if len(raw) != want:
        raise LoadError(f"{player} loads {want} bullets, not {len(raw)}")
    bullets: list[tuple[int, str]] = []
    for i, item in enumerate(raw):
        at = f"bullets[{i}]"
        entry = item if isinstance(item, Mapping) else {"slot": i + 1, "card": item}
        slot = _integer(entry, "slot", 1, BULLETS)
        card = _card_id(state, player, entry.get("card"), f"{at}.card")
        if any(s == slot for s, _ in bullets):
            raise LoadError(f"{at}.slot: two bullets in slot {slot}")
        if any(c == card for _, c in bullets):
            raise LoadError(f"{at}.card: {card} is loaded twice")
        if card not in state.available[player]:
            raise LoadError(f"{at}.card: {card} was spent in an earlier round")
        bullets.append((slot, card))
    out.add(Loaded(player, tuple(sorted(bullets))))


# -- 2) stare down and 3) draw --------------------------------------------------------------


def _may_choose(state: GameState, player: str) -> None:
    """Refuses a touch or reveal `player` may not make now, naming the rule."""
    phase = state.phase
    if phase is Phase.STARE_DOWN:
        if state.turn is not None and state.turn != player:
            raise OutOfTurn(
                f"it is {state.turn}'s turn: a player cannot touch any of their bullets until it "
                "is their turn",
                "stare down",
            )
        return
    if phase in (Phase.RACE, Phase.DEFENDER_CHOOSES):
        if player != state.defender:
            raise DrawError(f"{player} has drawn: that was the last bullet they reveal this round")
        return
    if phase is Phase.REPLY:
        if player != state.defender:
            raise DrawError(f"{player} has shot: only {state.defender} may reveal now")
        if state.defender_reveals >= DEFENDER_REVEALS:
            raise DrawError(
                f"a defender may reveal at most {DEFENDER_REVEALS} cards after the Draw"
            )
        return
    raise StareDownError(_not_now(state))


def _not_now(state: GameState) -> str:
    if state.phase is Phase.LOAD:
        return "the stare down starts when both players have loaded six bullets and are ready"
    if state.phase is Phase.SHOOT:
        return "the shots are being resolved: no bullet is revealed now"
    return "no bullet is revealed now"


def _face_down_slot(state: GameState, player: str, command: Mapping[str, Any]) -> int:
    slot = _integer(command, "slot", 1, BULLETS)
    bullet = state.hands[player].bullet(slot)
    if bullet is None:
        raise StareDownError(f"{player} has no bullet in slot {slot}")
    if bullet.face_up:
        raise StareDownError(f"{player}'s slot {slot} is already face up")
    return slot


def _touch(out: _Out, command: Mapping[str, Any]) -> None:
    state = out.state
    player = _player(state, command)
    _may_choose(state, player)
    slot = _face_down_slot(state, player, command)
    at_ms = _optional_ms(command, "at_ms")
    touched = state.hands[player].touched
    if touched == slot:
        return  # touched again: nothing new
    if touched is not None:
        raise StareDownError(
            f"{player} chose slot {touched}: once a player touches a bullet to choose it, they "
            "cannot change their mind"
        )
    out.add(Touched(player, slot, at_ms))


def _reveal(out: _Out, command: Mapping[str, Any]) -> None:
    state = out.state
    player = _player(state, command)
    _may_choose(state, player)
    slot = _face_down_slot(state, player, command)
    touched = state.hands[player].touched
    if touched is not None and touched != slot:
        raise StareDownError(
            f"{player} chose slot {touched} by touching it: reveal that one (they cannot change "
            "their mind)"
        )
    bullet = state.hands[player].bullet(slot)
    assert bullet is not None
    if command.get("card") is not None:
        card = _card_id(state, player, command.get("card"), "card")
        if card != bullet.card:
            raise StareDownError(
                f"{player}'s slot {slot} was loaded with another card: put back the bullet laid "
                "there"
            )
    phase = state.phase
    if phase is Phase.RACE:
        out.add(
            RaceDecided(player, None, None, "the defender revealed before the attacker touched")
        )
    out.add(Revealed(player, slot, bullet.card))
    drawn = out.state.card(player, bullet.card).is_draw
    if phase is Phase.STARE_DOWN:
        if drawn:
            out.add(Drew(player))
            _attack(out)
        elif out.state.turn is None:
            _end_round(out)  # every bullet is face up and nobody drew
        return
    attacker = state.attacker
    assert attacker is not None
    if phase in (Phase.RACE, Phase.DEFENDER_CHOOSES):
        if drawn:
            out.add(Drew(player))
            _simultaneous(
                out
            )  # "If this card is a Draw card, then both players take Simultaneous shots"
        else:
            out.add(ShotsCalled(((attacker,),)))  # "If it is any other card, ... an Instant shot"
        return
    # the reply: the defender shoots back on a Draw, else may reveal once more
    if drawn:
        out.add(Drew(player), ShotsCalled(((player,),)))
    elif out.state.defender_reveals >= DEFENDER_REVEALS or not out.state.hands[player].face_down:
        _end_round(out)


def _attack(out: _Out) -> None:
    """The attack has begun: the race, unless the defender has no face-down bullet to choose."""
    state = out.state
    defender = state.defender
    assert defender is not None and state.attacker is not None
    if not state.hands[defender].face_down:
        out.add(RaceDecided(state.attacker, None, None, "the defender has no face-down bullet"))
        out.add(ShotsCalled(((state.attacker,),)))


def _reach(out: _Out, command: Mapping[str, Any]) -> None:
    state = out.state
    player = _player(state, command)
    if state.phase is Phase.STARE_DOWN:
        out.add(Reached(player))
        _attack(out)
        return
    if state.phase is Phase.REPLY and player == state.defender:
        out.add(Reached(player), ShotsCalled(((player,),)))
        return
    raise DrawError(f"{player} cannot reach for a shot now: {_not_now(state)}")


def _race(out: _Out, command: Mapping[str, Any]) -> None:
    """Who was first to the defender's cards, entered by the table's reader, by hand or from a
    file; its own timestamps, when it has any, are judged as the mat's are (`judge_race`)."""
    state = out.state
    if state.phase is not Phase.RACE:
        raise DrawError("no race is on: a race follows a Draw (or a reach)")
    attacker, defender = state.attacker, state.defender
    assert attacker is not None and defender is not None
    attacker_ms = _optional_ms(command, "attacker_ms")
    defender_ms = _optional_ms(command, "defender_ms")
    window = int(state.options.get("tie_window_ms", TIE_WINDOW_MS))
    timed = attacker_ms is not None or defender_ms is not None
    judged = None
    if timed:
        first = judge_race(attacker_ms, defender_ms, window)
        judged = attacker if first is RaceWinner.ATTACKER else defender
    sent = command.get("winner")
    if sent is None and judged is not None:
        winner = judged
    else:
        winner = _race_winner(sent, attacker, defender)
    if judged is not None and winner != judged:
        # "If it is unclear which player was fastest to the defender's cards, then the defender
        # is considered to have been fast enough": the times decide, not the name sent with them.
        said = race_words(judged, attacker_ms, defender_ms, window, defender)
        raise DrawError(
            f"winner: {winner} does not match the race's own times ({said}); send the times "
            "alone, or the winner without times if the table's clock was wrong"
        )
    how = command.get("how", "")
    how = how[:120] if isinstance(how, str) else ""
    if sent == "unclear":
        how = f"too close to call: {how}" if how else "too close to call"
    out.add(RaceDecided(winner, attacker_ms, defender_ms, how, window if timed else None))
    if winner == attacker:
        out.add(ShotsCalled(((attacker,),)))  # "the attacker takes an Instant shot"
        return
    if command.get("slot") is not None and out.state.hands[defender].touched is None:
        slot = _face_down_slot(out.state, defender, command)
        out.add(Touched(defender, slot, defender_ms))


def _race_winner(sent: object, attacker: str, defender: str) -> str:
    """The race's winner named by a command: attacker, defender, a name, or unclear (the
    game master could not tell: "If it is unclear which player was fastest ... the defender")."""
    if sent == "attacker":
        return attacker
    if sent in ("defender", "unclear"):
        return defender
    if sent in (attacker, defender):
        assert isinstance(sent, str)
        return sent
    raise InvalidCommand(
        f"winner: expected attacker, defender, unclear, {attacker} or {defender} (or the "
        f"times attacker_ms and defender_ms), got {quote(sent)}",
        "winner",
    )


def _simultaneous(out: _Out) -> None:
    """Both drew: "The player with the highest speed result resolves their shot first"."""
    state = out.state
    attacker, defender = state.attacker, state.defender
    assert attacker is not None and defender is not None
    a = state.speed(attacker) + ATTACKER_SPEED_BONUS
    d = state.speed(defender)
    if a > d:
        groups: tuple[tuple[str, ...], ...] = ((attacker,), (defender,))
    elif d > a:
        groups = ((defender,), (attacker,))
    else:
        groups = ((attacker, defender),)  # "they shoot at each other at exactly the same time"
    out.add(ShotsCalled(groups, ((attacker, a), (defender, d))))


# -- 4) shoot -------------------------------------------------------------------------------


def hits(state: GameState, shooter: str, value: int) -> bool:
    """ "If this total value is 6 or higher, or they rolled a hit"."""
    face = int(state.options.get("hit_face", 0))
    return value + state.accuracy(shooter) >= HIT_TOTAL or (face != 0 and value == face)


def reroll_offer(state: GameState) -> tuple[str, str] | None:
    """(owner, card) of a Re-roll card that could change the current die, not yet let pass."""
    shooter = state.current_shooter
    if shooter is None or shooter not in state.rolls:
        return None
    hit = hits(state, shooter, state.rolls[shooter])
    for player in state.players:
        for owner, card in state.reroll_cards(player):
            if (owner, card.id) in state.declined:
                continue
            target = card.rerolls or RerollTarget.SELF
            own = shooter == owner
            if own and not hit and target in (RerollTarget.SELF, RerollTarget.EITHER):
                return owner, card.id
            if not own and hit and target in (RerollTarget.OPPONENT, RerollTarget.EITHER):
                return owner, card.id
    return None


def _roll(out: _Out, command: Mapping[str, Any]) -> None:
    state = out.state
    shooter = state.current_shooter
    if shooter is None:
        raise ShootError("no shot waits for a die now")
    if shooter in state.rolls:
        offer = reroll_offer(state)
        owner = offer[0] if offer else shooter
        raise ShootError(f"{owner}: re-roll {shooter}'s die (reroll) or let it stand (keep)")
    if command.get("player") is not None and command.get("player") != shooter:
        raise OutOfTurn(f"it is {shooter}'s shot", "shoot")
    out.add(Rolled(shooter, _integer(command, "value", 1, 6)))
    _settle(out)


def _reroll(out: _Out, command: Mapping[str, Any]) -> None:
    state = out.state
    offer = reroll_offer(state)
    if offer is None:
        raise ShootError("no Re-roll card can change this die now")
    player = command.get("player", offer[0])
    if player != offer[0]:
        raise ShootError(f"the Re-roll card is {offer[0]}'s: {offer[0]} chooses")
    shooter = state.current_shooter
    assert shooter is not None
    out.add(Rerolled(offer[0], offer[1], shooter, _integer(command, "value", 1, 6)))
    _settle(out)


def _keep(out: _Out, command: Mapping[str, Any]) -> None:
    offer = reroll_offer(out.state)
    if offer is None:
        raise ShootError("no Re-roll choice is open")
    player = command.get("player", offer[0])
    if player != offer[0]:
        raise ShootError(f"the Re-roll card is {offer[0]}'s: {offer[0]} chooses")
    out.add(RerollDeclined(*offer))
    _settle(out)


def _settle(out: _Out) -> None:
    """After a die: wait for a re-roll choice, or resolve the shot and what follows it."""
    state = out.state
    if reroll_offer(state) is not None:
        return
    shooter = state.current_shooter
    assert shooter is not None
    value = state.rolls[shooter]
    out.add(ShotResolved(shooter, value, state.accuracy(shooter), hits(state, shooter, value)))
    state = out.state
    if state.settled:
        return  # the other of a simultaneous pair still shoots
    if state.hits:
        _end_round(out)  # "As soon as a player is hit by a shot, the round ends immediately"
        return
    if state.shots:
        return  # the slower player now resolves their shot
    defender = state.defender
    assert defender is not None
    if (
        defender not in state.shot
        and defender not in state.signalled
        and state.defender_reveals < DEFENDER_REVEALS
        and state.hands[defender].face_down
    ):
        # "If the attacker misses their opponent, the defender can still reveal cards and may
        # shoot back"
        out.add(ReplyOpened(defender))
        return
    _end_round(out)  # "If both players take a shot and both miss, the round also ends"


def _pass(out: _Out, command: Mapping[str, Any]) -> None:
    state = out.state
    player = _player(state, command)
    if state.phase is not Phase.REPLY or player != state.defender:
        raise DrawError("only the defender, after the attacker missed, may stop revealing")
    out.add(Passed(player))
    _end_round(out)


# -- end of round, end of game --------------------------------------------------------------


def discard_bounds(state: GameState, player: str) -> tuple[int, int]:
    """How many revealed cards a Single Shot player must and may discard: "at least half of
    their revealed cards, but stop when their deck is reduced to only four cards"."""
    revealed = sum(1 for p, _ in state.reveals if p == player)
    room = max(0, len(state.available[player]) - DISCARD_FLOOR)
    return min((revealed + 1) // 2, room), min(revealed, room)


def _discards_apply(state: GameState, player: str) -> bool:
    if state.decks[player].kind is not DeckKind.SINGLE_SHOT:
        return False
    rule = state.options.get("single_shot_discard", "mixed")
    if rule == "always":
        return True
    return rule == "mixed" and state.decks[state.opponent(player)].kind is DeckKind.FULL


def _end_round(out: _Out) -> None:
    state = out.state
    scored: list[tuple[str, int]] = []
    for player in state.players:
        points = 0
        # "Fail to draw or hit your opponent, you don't score points for the round": a hit
        # scores only for a player who drew, unless the table chose `reach_scores`.
        if player in state.hits and (
            player in state.drew or state.options.get("reach_scores", False)
        ):
            points = 1
            # "If a player revealed their Draw card second and hit their opponent": second
            # to signal a shot, with a Draw; after a reach without a Draw only if the table
            # chose `bonus_after_reach` (the reach revealed no Draw card to be second to).
            if (
                len(state.signalled) > 1
                and state.signalled[1] == player
                and player in state.drew
                and (
                    state.signalled[0] in state.drew
                    or state.options.get("bonus_after_reach", False)
                )
            ):
                points += 1
        scored.append((player, points))
    spent = tuple(
        (p, tuple(c for owner, c in state.reveals if owner == p))
        for p in state.players
        if state.decks[p].kind is DeckKind.FULL
    )
    ended = RoundEnded(state.round, tuple(scored), state.hits, spent)
    after = state.apply(ended)
    over = _game_over(after)
    discards: tuple[str, ...] = ()
    if over is None:
        discards = tuple(
            p
            for p in state.players
            if _discards_apply(state, p) and discard_bounds(state, p)[1] > 0
        )
    out.add(RoundEnded(state.round, tuple(scored), state.hits, spent, discards))
    if over is not None:
        out.add(over)
    elif not discards:
        _start_round(out, state.round + 1)


def _game_over(state: GameState) -> GameWon | None:
    a, b = state.players
    leader = (
        a if state.points[a] > state.points[b] else b if state.points[b] > state.points[a] else None
    )
    if state.round >= ROUNDS and leader is not None:
        return GameWon(leader, f"the highest score after {state.round} rounds")
    empty = [p for p in state.players if not state.available[p]]
    if empty:
        return GameWon(leader, f"{' and '.join(empty)} has no bullets left")
    return None


def _discard(out: _Out, command: Mapping[str, Any]) -> None:
    state = out.state
    player = _player(state, command)
    if state.phase is not Phase.DISCARD or player not in state.discards_due:
        raise RoundError(f"{player} has nothing to discard now")
    raw = command.get("cards")
    if not isinstance(raw, list):
        raise InvalidCommand("cards: expected a list of card ids", "cards")
    revealed = [c for p, c in state.reveals if p == player]
    cards: list[str] = []
    for i, item in enumerate(raw):
        card = _card_id(state, player, item, f"cards[{i}]")
        if card not in revealed:
            raise RoundError(f"cards[{i}]: {card} was not revealed this round")
        if card in cards:
            raise RoundError(f"cards[{i}]: {card} is listed twice")
        cards.append(card)
    low, high = discard_bounds(state, player)
    if not low <= len(cards) <= high:
        raise RoundError(
            f"{player} discards {low} to {high} of the {len(revealed)} revealed cards (at least "
            f"half, stopping at a deck of {DISCARD_FLOOR})"
        )
    out.add(Discarded(player, tuple(cards)))
    if not out.state.discards_due:
        _start_round(out, state.round + 1)


_HANDLERS: dict[str, Callable[[_Out, Mapping[str, Any]], None]] = {
    "new_game": _new_game,
    "load": _load,
    "touch": _touch,
    "reveal": _reveal,
    "reach": _reach,
    "race": _race,
    "roll": _roll,
    "reroll": _reroll,
    "keep": _keep,
    "pass": _pass,
    "discard": _discard,
    "end_game": _end_game,
}
