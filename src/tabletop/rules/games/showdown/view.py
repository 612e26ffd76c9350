"""Six-Gun Showdown's state and events for people: JSON views, plain words, what is awaited.

The bullets are the secret: a face-down bullet's card is in the referee's view and in its
owner's seat view only ("places them face down in front of themselves"). Everything revealed,
the decks' titles and the points are public.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..game import DiceThrow, Waiting, WaitKind
from .decks import Deck
from .engine import discard_bounds, hits, reroll_offer
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
from .model import DEFENDER_REVEALS, ROUNDS
from .race import race_words
from .state import GameState, Phase

VIEW_VERSION = 1


def _card_json(deck: Deck, card_id: str) -> dict[str, Any]:
    card = deck.card(card_id)
    assert card is not None
    return {
        "card": deck.code(card_id),
        "title": card.title,
        "type": card.type.value,
        "speed": card.speed,
        "accuracy": card.accuracy,
        "opponent_speed": card.opponent_speed,
        "opponent_accuracy": card.opponent_accuracy,
    }


def state_to_json(state: GameState, reveal: frozenset[str] | None = None) -> dict[str, Any]:
    """The state as JSON; face-down bullets name their card only for the players in `reveal`
    (None: everyone, the referee's view)."""
    players = []
    for name in state.players:
        deck = state.decks[name]
        hand = state.hands.get(name)
        secret = reveal is not None and name not in reveal
        bullets = []
        for bullet in hand.bullets if hand is not None else ():
            # "state" as the other games' slots have it, which the room's console checks again
            shown: dict[str, Any] = {
                "slot": bullet.slot,
                "face_up": bullet.face_up,
                "state": "face_up" if bullet.face_up else "face_down",
            }
            if bullet.face_up or not secret:
                shown.update(_card_json(deck, bullet.card))
            bullets.append(shown)
        entry: dict[str, Any] = {
            "name": name,
            "deck": {"name": deck.name, "title": deck.title, "kind": deck.kind.value},
            "points": state.points.get(name, 0),
            "cards_left": len(state.available.get(name, ())),
            # Spent and discarded cards were all revealed face up: anyone may know them.
            "spent": [c.id for c in deck.cards if c.id not in state.available.get(name, ())],
            "loaded": hand.loaded if hand is not None else False,
            "touched": hand.touched if hand is not None else None,
            "bullets": bullets,
        }
        if state.in_play:
            entry["speed"] = state.speed(name)
            entry["accuracy"] = state.accuracy(name)
        if not secret:
            entry["available"] = list(state.available.get(name, ()))
        players.append(entry)
    last = state.last_round
    return {
        "v": VIEW_VERSION,
        "game": "showdown",
        "phase": state.phase.value,
        "round": state.round,
        "rounds": ROUNDS,
        "options": dict(state.options),
        "players": players,
        "turn": state.turn,
        "attacker": state.attacker,
        "defender": state.defender,
        "drew": list(state.drew),
        "race_winner": state.race_winner,
        "shots": [list(group) for group in state.shots],
        "rolls": dict(state.rolls),
        "hits": list(state.hits),
        "last_round": None
        if last is None
        else {"number": last.number, "scored": dict(last.scored), "hits": list(last.hits)},
        "winner": state.winner,
        "pending": waiting(state).detail,
    }


def waiting(state: GameState) -> Waiting:
    """What the game waits for now, in words that name no face-down card."""
    if not state.started:
        return Waiting(WaitKind.NOTHING, "no game yet: the game master starts one")
    if state.over:
        won = f"{state.winner} wins" if state.winner else "nobody wins"
        return Waiting(WaitKind.NOTHING, f"the game is over: {won}")
    phase = state.phase
    detail: dict[str, Any] = {"type": phase.value}
    if phase is Phase.LOAD:
        who = tuple(p for p in state.players if not state.hands[p].loaded)
        counts = {state.to_load[p] for p in who}
        n = counts.pop() if len(counts) == 1 else "your"
        words = (
            f"round {state.round}: {' and '.join(who)}, lay {n} bullets face down in your slots "
            "(any order), then take your hands away: that says you are ready"
        )
        return _wait(WaitKind.CARD, words, who, detail)
    if phase is Phase.STARE_DOWN:
        if state.turn is None:
            words = "stare down: whoever touches one of their bullets first goes first"
            detail["lights"] = _lights(state, state.players, "turn")
            return _wait(WaitKind.CARD, words, state.players, detail)
        words = f"{state.turn}: touch one of your face-down bullets, then turn it face up"
        detail["lights"] = _lights(state, (state.turn,), "turn")
        return _wait(WaitKind.CARD, words, (state.turn,), detail)
    attacker, defender = state.attacker or "", state.defender or ""
    if phase is Phase.RACE:
        words = (
            f"BANG! {attacker} draws: {attacker}, touch one of {defender}'s face-down bullets; "
            f"{defender}, choose your next bullet by touching it first"
        )
        detail["lights"] = _lights(state, (defender,), "race")
        return _wait(WaitKind.CARD, words, (attacker, defender), detail)
    if phase is Phase.DEFENDER_CHOOSES:
        words = f"{defender} was fast enough: turn the chosen bullet face up"
        detail["lights"] = _lights(state, (defender,), "defender_first")
        return _wait(WaitKind.CARD, words, (defender,), detail)
    if phase is Phase.REPLY:
        left = DEFENDER_REVEALS - state.defender_reveals
        words = (
            f"{attacker} missed: {defender}, reveal another bullet ({left} more at most) and "
            f"shoot back if it is a Draw, or stop revealing"
        )
        detail["lights"] = _lights(state, (defender,), "turn")
        return _wait(WaitKind.CARD, words, (defender,), detail)
    if phase is Phase.SHOOT:
        shooter = state.current_shooter or ""
        offer = reroll_offer(state)
        if offer is not None:
            owner, card = offer
            value = state.rolls[shooter]
            result = "hits" if hits(state, shooter, value) else "misses"
            words = (
                f"{shooter} rolled {value} and {result}: {owner}, throw {shooter}'s die again "
                f"with your Re-roll, or let it stand"
            )
            detail = {
                "type": "reroll",
                "who": [owner],
                "shooter": shooter,
                "card": card,
                "prompt": words,
                "lights": _race_lights(state),
            }
            return Waiting(WaitKind.DICE, words, (owner,), DiceThrow(owner, 1), detail)
        together = len(state.shots[0]) > 1 if state.shots else False
        how = "at the same time as the other" if together else "the shot"
        words = (
            f"{shooter}: throw the die for {how} (Accuracy {state.accuracy(shooter):+d}); "
            "6 or more hits"
        )
        detail = {
            "type": "roll",
            "who": [shooter],
            "prompt": words,
            "race_winner": state.race_winner,  # the race's result, for the slots' lights
            "lights": _race_lights(state),
        }
        return Waiting(WaitKind.DICE, words, (shooter,), DiceThrow(shooter, 1), detail)
    if phase is Phase.DISCARD:
        parts = []
        for player in state.discards_due:
            low, high = discard_bounds(state, player)
            parts.append(f"{player} discards {low} to {high} of this round's revealed cards")
        words = "; ".join(parts)
        return _wait(WaitKind.CHOICE, words, state.discards_due, detail)
    return Waiting(WaitKind.GAME_MASTER, "the game master", (), None, detail)


def _lights(state: GameState, players: tuple[str, ...], show: str) -> list[dict[str, Any]]:
    """Which slots the mat's guidance LEDs may light now and why: `turn` (whose bullets may be
    chosen), `race` (the defender's bullets both hands race for), `defender_first` (the bullet
    the defender chose in time); `_race_lights` adds `won` and `lost` for the shots. Players by
    name: `Showdown.indicators` turns them into seats for the mat (`leds/frame` "slots")."""
    out = []
    for player in players:
        hand = state.hands[player]
        if show == "defender_first" and hand.touched is not None:
            slots = [hand.touched]
        else:
            slots = [b.slot for b in hand.face_down]
        out.append({"player": player, "slots": slots, "show": show})
    return out


def _race_lights(state: GameState) -> list[dict[str, Any]]:
    """The race's result while its shots are taken: the winner's bullet (the Draw, or the one
    the defender chose in time) `won`, the loser's face-down bullets `lost`; none without a
    race."""
    winner = state.race_winner
    if winner is None or winner not in state.hands:
        return []
    out = []
    card = next((c for p, c in reversed(state.reveals) if p == winner), None)
    slot = next((b.slot for b in state.hands[winner].bullets if b.card == card), None)
    if slot is not None:
        out.append({"player": winner, "slots": [slot], "show": "won"})
    loser = state.opponent(winner)
    lost = [b.slot for b in state.hands[loser].face_down]
    if lost:
        out.append({"player": loser, "slots": lost, "show": "lost"})
    return out


def _wait(kind: WaitKind, words: str, who: tuple[str, ...], detail: dict[str, Any]) -> Waiting:
    return Waiting(kind, words, who, None, {**detail, "who": list(who), "prompt": words})


# -- events in words --------------------------------------------------------------------------


def describe_event(event: Event, state: GameState | None = None, public: bool = False) -> str:
    """An event in words; `public` leaves out what is face down (the loaded cards)."""
    match event:
        case GameStarted(players, decks, _):
            sides = ", ".join(f"{p} ({d.title})" for p, d in zip(players, decks, strict=True))
            return f"Six-Gun Showdown: {sides}"
        case RoundStarted(number, bullets):
            extra = " (a tie-break round)" if number > ROUNDS else ""
            counts = {n for _, n in bullets}
            n = counts.pop() if len(counts) == 1 else "their"
            return f"Round {number}{extra}: load {n} bullets"
        case Loaded(player, bullets):
            if public:
                return f"{player} is ready ({len(bullets)} bullets face down)"
            cards = ", ".join(f"{slot}:{card}" for slot, card in bullets)
            return f"{player} is ready: {cards}"
        case Touched(player, slot, _):
            return f"{player} chooses the bullet in slot {slot}"
        case Revealed(player, slot, card):
            if state is not None and player in state.decks:
                found = state.decks[player].card(card)
                if found is not None:
                    return f"{player} reveals {found.title} ({found.type.value}, slot {slot})"
            return f"{player} reveals {card} (slot {slot})"
        case Drew(player):
            return f"{player} draws!"
        case Reached(player):
            return f"{player} reaches for a shot without a Draw"
        case RaceDecided(winner, attacker_ms, defender_ms, how, window):
            # Said as it was: the margin, and a tie as a tie (never "first" inside the window).
            defender = state.defender if state is not None else None
            words = race_words(winner, attacker_ms, defender_ms, window, defender)
            return words + (f" ({how})" if how else "")
        case ShotsCalled(groups, speeds):
            speed = f" (speed {', '.join(f'{p} {s}' for p, s in speeds)})" if speeds else ""
            order = " then ".join(
                " and ".join(g) + (" together" if len(g) > 1 else "") for g in groups
            )
            return f"Shots: {order}{speed}"
        case Rolled(player, value):
            return f"{player} rolls {value}"
        case Rerolled(by, _, shooter, value):
            return f"{by} plays a Re-roll: {shooter}'s die again shows {value}"
        case RerollDeclined(by, _):
            return f"{by} lets the die stand"
        case ShotResolved(shooter, value, accuracy, hit):
            result = "HIT" if hit else "misses"
            return f"{shooter}'s shot {result} ({value} {accuracy:+d} = {value + accuracy})"
        case ReplyOpened(player):
            return f"{player} may still reveal and shoot back"
        case Passed(player):
            return f"{player} reveals no more"
        case RoundEnded(number, scored, hit, _, _):
            points = ", ".join(f"{p} +{n}" for p, n in scored)
            who = " and ".join(hit) if hit else "nobody"
            return f"Round {number} is over: {who} hit ({points})"
        case Discarded(player, cards):
            return f"{player} discards {len(cards)} revealed card(s): {', '.join(cards)}"
        case GameWon(winner, reason):
            return f"{winner} wins the showdown ({reason})" if winner else f"A draw ({reason})"
        case GameEnded():
            return "The game is over"


def render_view(view: Mapping[str, Any]) -> str:
    """The table as text from its JSON view."""
    lines = [f"Six-Gun Showdown, round {view.get('round')} ({view.get('phase')})"]
    for p in view.get("players", []):
        slots = []
        for b in p.get("bullets", []):
            if b.get("face_up"):
                slots.append(f"{b['slot']}:{b.get('title', '?')}")
            else:
                slots.append(f"{b['slot']}:" + ("[" + b["card"] + "]" if "card" in b else "##"))
        lines.append(
            f"  {p['name']:<10} {p['deck']['title']:<10} points {p['points']}  "
            + ("  ".join(slots) or "-")
        )
    pending = view.get("pending")
    if isinstance(pending, dict) and pending.get("prompt"):
        lines.append(f"  waiting: {pending['prompt']}")
    return "\n".join(lines)
