"""Dice poker of "Additional Rules" ("Gambling"): the hands, the betting, the pots, purely.

A game of poker is a `Poker` value: the seats in clockwise order with the money each put on
the table, and the hand being played. Every change is a function from a `Poker` to the next,
raising IllegalMove (words for people, the seed's heading as the rule) when the seed forbids
it; the engine decides with them and the state folds its events with the same functions, so
the two cannot disagree. Money is counted in whole dollars ("$1 minimum bet: Players can only
bet and/or raise in increments of $1").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from itertools import combinations
from typing import Final

from tabletop.rules.games.errors import IllegalMove

VARIANTS: Final = ("draw", "hold_em", "lucky_seven")
VARIANT_NAMES: Final = {
    "draw": "five-dice draw",
    "hold_em": "Hold 'Em",
    "lucky_seven": "Lucky Seven",
}
# "each player and the GM roll 5D6"; Hold 'Em: "each player rolls two dice"; Lucky Seven:
# "each player rolls seven dice".
DEAL_DICE: Final = {"draw": 5, "hold_em": 2, "lucky_seven": 7}
# Rounds of betting: opening and final bets; Hold 'Em's four; Lucky Seven's "only one".
STREETS: Final = {"draw": 2, "hold_em": 4, "lucky_seven": 1}
# Hold 'Em's community dice before the 2nd, 3rd and 4th round of betting: flop, turn, river.
COMMUNITY_DICE: Final = (3, 1, 1)
COMMUNITY_NAMES: Final = ("the flop", "the turn", "the river")
MAX_REDRAW = 3  # "select up to three dice from their hand and re-roll them"
ODD_DOLLAR: Final = ("left_of_dealer", "next_pot")
TIES: Final = ("values", "category")

# "Poker Hand Rankings", lowest first ("Because dice don't have suits, it's not possible to
# achieve a flush.")
CATEGORIES: Final = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "full house",
    "four of a kind",
    "five of a kind",
)
STRAIGHTS: Final = ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))  # "Straight (1, 2, 3, 4, 5 or 2, 3, 4, 5, 6)"
RULE_BETS = "opening bets"
RULE_DRAW = "the draw"
RULE_MONEY = "putting money on the table"
RULE_RAISE = "minimum raise"


class Phase(Enum):
    """Where a game of poker stands."""

    BETWEEN = "between"  # no hand in play: ante the next one, leave, or end the poker
    DEAL = "deal"  # the players throw their hands, one after another
    BETTING = "betting"
    DRAW = "draw"  # five-dice draw: each remaining player re-throws up to three dice
    COMMUNITY = "community"  # Hold 'Em: the dealer throws the flop, the turn or the river
    REVEAL = "reveal"  # concealed hands: shown, and laid in the tray one after another
    SHOWDOWN = "showdown"  # the hand is decided: the pots are paid out at once


@dataclass(frozen=True, slots=True)
class Rank:
    """A hand's place in the rankings: its category, then its values (most repeated first)."""

    category: int
    values: tuple[int, ...]

    @property
    def name(self) -> str:
        return CATEGORIES[self.category]

    def key(self, ties: str) -> tuple[int, ...]:
        """What two hands are compared by: the category, and the values unless `ties` is
        "category" (then any two hands of a category tie)."""
        return (self.category,) if ties == "category" else (self.category, *self.values)

    def words(self) -> str:
        return f"{self.name} ({' '.join(str(v) for v in self.values)})"


def rank(dice: Sequence[int]) -> Rank:
    """The rank of five dice."""
    if len(dice) != 5:
        raise ValueError(f"a poker hand is five dice, not {len(dice)}")
    groups = sorted(Counter(dice).items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = tuple(count for _, count in groups)
    values = tuple(value for value, _ in groups)
    if tuple(sorted(dice)) in STRAIGHTS:
        return Rank(4, (max(dice),))
    category = {
        (5,): 7,
        (4, 1): 6,
        (3, 2): 5,
        (3, 1, 1): 3,
        (2, 2, 1): 2,
        (2, 1, 1, 1): 1,
    }.get(shape, 0)
    return Rank(category, values)


def best_rank(dice: Sequence[int], ties: str = "values") -> Rank:
    """The best five of these dice (Lucky Seven's seven, Hold 'Em's pocket and community)."""
    if len(dice) == 5:
        return rank(dice)
    return max((rank(five) for five in combinations(dice, 5)), key=lambda r: r.key(ties))


@dataclass(frozen=True, slots=True)
class Seat:
    """One player at the poker table: the money in front of them, and their part in the hand."""

    name: str
    money: int  # on the table and not in the pot
    playing: bool = False  # anted into the hand in play
    folded: bool = False
    put_in: int = 0  # into the pot this hand, the ante included
    street_bet: int = 0  # this round of betting
    acted: bool = False  # since the bet last went up
    dice: tuple[int, ...] = ()
    kept: tuple[int, ...] | None = None  # the dice named as kept at the draw
    drawn: bool = False
    shown: bool = False  # concealed: laid in the tray at the reveal
    tray: tuple[int, ...] | None = None  # what the tray showed then (the camera's or the GM's)

    @property
    def live(self) -> bool:
        """Still in the hand: anted and not folded."""
        return self.playing and not self.folded

    @property
    def all_in(self) -> bool:
        return self.live and self.money == 0

    @property
    def can_act(self) -> bool:
        return self.live and self.money > 0


@dataclass(frozen=True, slots=True)
class Award:
    """Money a player wins from one pot at the end of a hand."""

    player: str
    amount: int
    pot: str  # "the pot", "the main pot", "side pot 1", ...
    hand: str  # the winning hand in words, or why it won without one


@dataclass(frozen=True, slots=True)
class Poker:
    """A game of poker: the seats clockwise, the options, and the hand in play."""

    seats: tuple[Seat, ...]
    ante: int = 1
    variant: str = "draw"
    dealer: int = 0  # the seat that deals the next (or this) hand
    minimum_raise: bool = True
    ties: str = "values"
    odd_dollar: str = "left_of_dealer"
    # Played open (every hand thrown in the tray) or concealed ("keeping their dice
    # concealed": each hand entered, shown at the reveal). True for a game of poker logged
    # before concealed hands existed, which was played open.
    open: bool = True
    phase: Phase = Phase.BETWEEN
    street: int = 0  # the round of betting, from 1
    turn: int | None = None  # the seat that throws or bets now
    bet: int = 0  # the highest bet of this round
    last_raise: int = 0  # the size of the last bet or raise this round
    community: tuple[int, ...] = ()
    hand: int = 0  # hands begun
    carry: int = 0  # odd dollars left in the pot for the next hand
    paid: int = 0  # paid out of the pot this hand
    stakes: int = 0  # all the money ever put on the table
    taken: int = 0  # money taken home by players who left

    @property
    def pot(self) -> int:
        return sum(s.put_in for s in self.seats) + self.carry - self.paid

    @property
    def in_hand(self) -> bool:
        return self.phase is not Phase.BETWEEN

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.seats)

    def seat(self, name: str) -> Seat | None:
        for seat in self.seats:
            if seat.name == name:
                return seat
        return None

    def to_call(self, seat: Seat) -> int:
        return max(0, self.bet - seat.street_bet)

    def min_raise(self) -> int:
        """The least a raise may add now ("at least the amount of the previous raise")."""
        return max(1, self.last_raise) if self.minimum_raise else 1

    def awaited_dice(self) -> tuple[str, int, bool] | None:
        """Who throws how many dice in the tray now, and whether some stay (the draw), if a
        throw is due there (a concealed hand is entered instead: `awaited_hands`)."""
        if self.turn is None:
            return None
        seat = self.seats[self.turn]
        who = seat.name
        if self.phase is Phase.DEAL and self.open:
            return who, DEAL_DICE[self.variant], False
        if self.phase is Phase.DRAW and self.open:
            return who, 5, True
        if self.phase is Phase.COMMUNITY:
            return who, COMMUNITY_DICE[self.street - 1], False
        if self.phase is Phase.REVEAL:
            return who, len(seat.dice), False
        return None

    def awaited_hands(self) -> tuple[str, ...]:
        """Concealed: the gamblers whose hand is to be entered now (the deal: all who have
        none yet, in any order; the draw: the one whose draw it is)."""
        if self.open:
            return ()
        if self.phase is Phase.DEAL:
            return tuple(s.name for s in self.seats if s.playing and not s.dice)
        if self.phase is Phase.DRAW and self.turn is not None:
            return (self.seats[self.turn].name,)
        return ()

    def hidden(self, seat: Seat) -> bool:
        """Whether the room may not see this seat's dice now: concealed hands, before their
        reveal (a folded hand is never revealed; between hands there are none to see)."""
        if self.open:
            return False
        return not (self.phase is Phase.REVEAL and seat.live)

    def bettor(self) -> Seat | None:
        """The seat whose bet it is, during a round of betting."""
        if self.phase is not Phase.BETTING or self.turn is None:
            return None
        return self.seats[self.turn]

    def hand_of(self, seat: Seat) -> tuple[int, ...]:
        """The dice a seat's hand is made of (Hold 'Em: pocket and community dice)."""
        return seat.dice + self.community if self.variant == "hold_em" else seat.dice


def start(
    players: Sequence[tuple[str, int]],
    *,
    ante: int,
    variant: str,
    dealer: int,
    minimum_raise: bool,
    ties: str,
    odd_dollar: str,
    open: bool = True,
) -> Poker:
    """A game of poker: each player's money put on the table, the first dealer."""
    seats = tuple(Seat(name, money) for name, money in players)
    return Poker(
        seats,
        ante=ante,
        variant=variant,
        dealer=dealer,
        minimum_raise=minimum_raise,
        ties=ties,
        odd_dollar=odd_dollar,
        open=open,
        stakes=sum(money for _, money in players),
    )


def _clockwise(p: Poker, start: int) -> list[int]:
    n = len(p.seats)
    return [(start + k) % n for k in range(n)]


def _set(p: Poker, index: int, **changes: object) -> Poker:
    seats = list(p.seats)
    seats[index] = replace(seats[index], **changes)  # type: ignore[arg-type]
    return replace(p, seats=tuple(seats))


def _index(p: Poker, name: str) -> int:
    for index, seat in enumerate(p.seats):
        if seat.name == name:
            return index
    raise IllegalMove(f"{name} is not at the poker table", RULE_MONEY)


def antes(p: Poker) -> tuple[int, ...]:
    """What each seat antes: the ante, or all it has left (all in) when that is less."""
    return tuple(min(p.ante, s.money) for s in p.seats)


def begin_hand(p: Poker) -> Poker:
    """Every player with money antes ("All players must ante") and the deal begins."""
    if p.in_hand:
        raise IllegalMove("a hand is being played: finish it first", RULE_BETS)
    if sum(1 for s in p.seats if s.money > 0) < 2:
        raise IllegalMove("poker needs at least two players with money on the table", "gambling")
    seats = tuple(
        Seat(s.name, s.money - a, playing=a > 0, put_in=a) if a > 0 else Seat(s.name, s.money)
        for s, a in zip(p.seats, antes(p), strict=True)
    )
    begun = replace(
        p,
        seats=seats,
        phase=Phase.DEAL,
        street=0,
        bet=0,
        last_raise=0,
        community=(),
        hand=p.hand + 1,
        paid=0,
        turn=None,
    )
    return replace(begun, turn=_next(begun, p.dealer, lambda s: s.playing and not s.dice))


def _next(p: Poker, after: int, wanted: Callable[[Seat], bool]) -> int | None:
    """The first seat clockwise after `after` that `wanted(seat)` accepts."""
    for index in _clockwise(p, after + 1):
        if wanted(p.seats[index]):
            return index
    return None


def _needs_to_act(p: Poker, seat: Seat) -> bool:
    if not seat.can_act:
        return False
    if seat.street_bet < p.bet:
        return True
    # With fewer than two players able to bet there is nobody to bet against.
    return not seat.acted and sum(1 for s in p.seats if s.can_act) >= 2


def _advance(p: Poker) -> Poker:
    """After a throw or a bet: the next seat to act, or the next part of the hand."""
    if sum(1 for s in p.seats if s.live) <= 1:
        return replace(p, phase=Phase.SHOWDOWN, turn=None)
    after = p.turn if p.turn is not None else p.dealer
    if p.phase is Phase.DEAL:
        nxt = _next(p, after, lambda s: s.playing and not s.dice)
        return replace(p, turn=nxt) if nxt is not None else _start_street(p)
    if p.phase is Phase.DRAW:
        nxt = _next(p, after, lambda s: s.live and not s.drawn)
        return replace(p, turn=nxt) if nxt is not None else _start_street(p)
    if p.phase is Phase.COMMUNITY:
        return _start_street(p)
    if p.phase is Phase.REVEAL:
        nxt = _next(p, after, lambda s: s.live and not s.shown)
        return replace(p, turn=nxt) if nxt is not None else replace(p, phase=Phase.SHOWDOWN)
    if p.phase is Phase.BETTING:
        nxt = _next(p, after, lambda s: _needs_to_act(p, s))
        return replace(p, turn=nxt) if nxt is not None else _end_street(p)
    return p


def _start_street(p: Poker) -> Poker:
    seats = tuple(replace(s, street_bet=0, acted=False) for s in p.seats)
    p = replace(p, seats=seats, phase=Phase.BETTING, street=p.street + 1, bet=0, last_raise=0)
    # "starting with the character sitting left of the dealer"
    nxt = _next(p, p.dealer, lambda s: _needs_to_act(p, s))
    return replace(p, turn=nxt) if nxt is not None else _end_street(p)


def _end_street(p: Poker) -> Poker:
    """The pot is right: the draw, the next community dice, or the reveal."""
    if p.street >= STREETS[p.variant]:
        if not p.open:
            # "There is a final round of betting before the reveal": each hand still in is
            # shown, and laid in the tray in turn from the dealer's left for the camera.
            return replace(p, phase=Phase.REVEAL, turn=_next(p, p.dealer, lambda s: s.live))
        return replace(p, phase=Phase.SHOWDOWN, turn=None)
    if p.variant == "draw":
        turn = _next(p, p.dealer, lambda s: s.live and not s.drawn)
        return replace(p, phase=Phase.DRAW, turn=turn)
    # Hold 'Em: "the dealer rolls three dice", then "a fourth die", then "a fifth die".
    return replace(p, phase=Phase.COMMUNITY, turn=p.dealer)


def _expect_throw(p: Poker, name: str | None, count: int) -> int:
    awaited = p.awaited_dice()
    if awaited is None or p.turn is None:
        raise IllegalMove("no poker dice are awaited now", RULE_BETS)
    who, dice, _ = awaited
    if name is not None and name != who:
        raise IllegalMove(f"this throw is {who}'s, not {name}'s", "the deal")
    if count != dice:
        raise IllegalMove(f"{who} throws {dice} dice, not {count}", "the deal")
    return p.turn


def dealt(p: Poker, values: Sequence[int]) -> Poker:
    """The throw of the seat whose turn it is: its hand, or the dealer's community dice."""
    index = _expect_throw(p, None, len(values))
    if p.phase is Phase.DEAL:
        return _advance(_set(p, index, dice=tuple(values)))
    if p.phase is Phase.COMMUNITY:
        return _advance(replace(p, community=p.community + tuple(values)))
    raise IllegalMove("the draw is thrown with the dice the player keeps", RULE_DRAW)


RULE_CONCEALED = "keeping their dice concealed"


def hand_size(p: Poker) -> int:
    """How many dice a hand entered now holds: the deal's, or five after the draw."""
    return 5 if p.phase is Phase.DRAW else DEAL_DICE[p.variant]


def entered(p: Poker, name: str, values: Sequence[int]) -> Poker:
    """A concealed hand entered for `name` (their phone, or the game master for them): the
    deal's dice, or the whole hand after the draw, which must hold the dice named as kept."""
    if p.open:
        raise IllegalMove(
            "this poker is played open: each hand is thrown in the tray, not entered",
            RULE_CONCEALED,
        )
    seat = p.seat(name)
    if seat is None or not seat.live:
        raise IllegalMove(f"{name} is not in this hand", RULE_CONCEALED)
    if p.phase not in (Phase.DEAL, Phase.DRAW):
        raise IllegalMove(f"no hand is entered now: {_not_entering(p)}", RULE_CONCEALED)
    count = hand_size(p)
    if len(values) != count or not all(1 <= v <= 6 for v in values):
        raise IllegalMove(f"{name}'s hand needs {count} dice, 1-6", RULE_CONCEALED)
    index = _index(p, name)
    if p.phase is Phase.DEAL:
        if seat.dice:
            later = "only at the draw" if p.variant == "draw" else "no more this hand"
            raise IllegalMove(
                f"{name}'s hand is already entered: it changes {later}", RULE_CONCEALED
            )
        p = _set(p, index, dice=tuple(values))
        nxt = _next(p, p.dealer, lambda s: s.playing and not s.dice)
        return replace(p, turn=nxt) if nxt is not None else _start_street(p)
    _draw_turn(p, name)
    if seat.kept is not None and not _contains(values, seat.kept):
        raise IllegalMove(f"the hand must keep the {_dice_words(seat.kept)} {name} kept", RULE_DRAW)
    if seat.kept is None and _common(seat.dice, values) < 5 - MAX_REDRAW:
        raise IllegalMove(
            f"{name}'s new hand must keep at least two of the old one's dice "
            "(up to three are thrown again)",
            RULE_DRAW,
        )
    return _advance(_set(p, index, dice=tuple(values), drawn=True))


def _not_entering(p: Poker) -> str:
    if not p.in_hand:
        return "no hand is being played"
    if p.phase is Phase.REVEAL:
        return "the hands are being shown"
    return "the hands are in: " + ("the betting" if p.phase is Phase.BETTING else "the next part")


def shown(p: Poker, values: Sequence[int]) -> Poker:
    """At the reveal: the hand of the seat whose turn it is, laid in the tray (what the tray
    showed is kept; the pots are paid by the hand entered, which was bet on)."""
    if p.phase is not Phase.REVEAL or p.turn is None:
        raise IllegalMove("no hand is being shown now", RULE_CONCEALED)
    seat = p.seats[p.turn]
    if len(values) != len(seat.dice):
        raise IllegalMove(
            f"{seat.name}'s hand is {len(seat.dice)} dice, not {len(values)}", RULE_CONCEALED
        )
    return _advance(_set(p, p.turn, shown=True, tray=tuple(values)))


def matches(seat: Seat, values: Sequence[int]) -> bool:
    """Whether the tray shows the hand entered (the dice in any order)."""
    return sorted(seat.dice) == sorted(values)


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    return sum((Counter(a) & Counter(b)).values())


def _contains(whole: Sequence[int], part: Sequence[int]) -> bool:
    return _common(whole, part) == len(part)


def _dice_words(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in values)


def keep(p: Poker, name: str, kept: Sequence[int]) -> Poker:
    """A player names the dice they keep at the draw (all five: they stand pat)."""
    index = _draw_turn(p, name)
    seat = p.seats[index]
    if not _contains(seat.dice, kept):
        raise IllegalMove(
            f"{name}'s hand is {_dice_words(seat.dice)}: it has no {_dice_words(kept)} to keep",
            RULE_DRAW,
        )
    if len(kept) < 5 - MAX_REDRAW:
        raise IllegalMove(f"{name} may throw up to three dice again: keep at least two", RULE_DRAW)
    changed = _set(p, index, kept=tuple(sorted(kept)))
    if len(kept) == 5:
        return _advance(_set(changed, index, drawn=True))
    return changed


def _draw_turn(p: Poker, name: str) -> int:
    if p.phase is not Phase.DRAW or p.turn is None:
        raise IllegalMove("it is not the draw now", RULE_DRAW)
    who = p.seats[p.turn].name
    if name != who:
        raise IllegalMove(f"it is {who}'s draw, not {name}'s", RULE_DRAW)
    return p.turn


def check_draw(p: Poker, name: str, values: Sequence[int]) -> str | None:
    """Why this final hand cannot come from the draw (None when it can): the dice named as kept
    must be in it, and without them at least two of the hand must be ("up to three")."""
    seat = p.seat(name)
    assert seat is not None
    if seat.kept is not None:
        if not _contains(values, seat.kept):
            return (
                f"{name} kept {_dice_words(seat.kept)} but the tray shows {_dice_words(values)}: "
                "leave the kept dice as they lie and throw only the others"
            )
        return None
    if _common(seat.dice, values) < 5 - MAX_REDRAW:
        return (
            f"{name}'s hand was {_dice_words(seat.dice)}; the tray shows {_dice_words(values)}: "
            "keep at least two of your dice and throw up to three again"
        )
    return None


def drawn(p: Poker, name: str, values: Sequence[int]) -> Poker:
    """A player's hand after the draw."""
    index = _draw_turn(p, name)
    if len(values) != 5:
        raise IllegalMove(f"{name}'s hand after the draw is 5 dice, not {len(values)}", RULE_DRAW)
    problem = check_draw(p, name, values)
    if problem is not None:
        raise IllegalMove(problem, RULE_DRAW)
    return _advance(_set(p, index, dice=tuple(values), drawn=True))


def rethrown(p: Poker, name: str, values: Sequence[int]) -> int:
    """How many dice a draw threw again (at least: the dice it shares with the hand stayed)."""
    seat = p.seat(name)
    assert seat is not None
    kept = seat.kept if seat.kept is not None else ()
    return 5 - max(len(kept), _common(seat.dice, values))


ACTIONS: Final = ("check", "bet", "call", "raise", "fold", "all_in")


def act(p: Poker, name: str, action: str, amount: int = 0) -> Poker:
    """A bet (check, bet, call, raise, fold, all in) by the seat whose turn it is."""
    bettor = p.bettor()
    if bettor is None:
        raise IllegalMove("nobody bets now: " + _not_betting(p), RULE_BETS)
    if bettor.name != name:
        raise IllegalMove(f"it is {bettor.name}'s turn to bet, not {name}'s", RULE_BETS)
    assert p.turn is not None
    index = p.turn
    owe = p.to_call(bettor)
    pay = 0
    if action == "check":
        if owe:
            raise IllegalMove(
                f"{name} can't check: the bet is ${p.bet} (call ${owe}, raise or fold)",
                RULE_BETS,
            )
    elif action == "fold":
        return _advance(_set(p, index, folded=True, acted=True))
    elif action == "call":
        if not owe:
            raise IllegalMove(f"{name} has nothing to call: check or bet", RULE_BETS)
        pay = min(owe, bettor.money)  # short of it: all in ("even if they can't match")
    elif action == "bet":
        if p.bet:
            raise IllegalMove(
                f"{name} can't bet: there is a bet of ${p.bet} (call, raise or fold)", RULE_BETS
            )
        if amount < 1:
            raise IllegalMove("the least bet is $1", "$1 minimum bet")
        pay = amount
    elif action == "raise":
        if not p.bet:
            raise IllegalMove(f"{name} can't raise: there is no bet yet (bet instead)", RULE_BETS)
        least = p.min_raise()
        if amount < least:
            rule = RULE_RAISE if p.minimum_raise else "$1 minimum bet"
            raise IllegalMove(f"{name} can't raise by less than ${least}", rule)
        pay = owe + amount
    elif action == "all_in":
        pay = bettor.money
    else:
        raise IllegalMove(f"{action} is not a bet: {', '.join(ACTIONS)}", RULE_BETS)
    if pay > bettor.money:
        raise IllegalMove(
            f"{name} has only ${bettor.money} on the table: that needs ${pay} (go all in)",
            "final bets",
        )
    return _advance(_pay(p, index, pay))


def _pay(p: Poker, index: int, pay: int) -> Poker:
    seat = p.seats[index]
    street = seat.street_bet + pay
    p = _set(p, index, money=seat.money - pay, put_in=seat.put_in + pay, street_bet=street)
    if street > p.bet:
        raised = street - p.bet
        # A short all-in raises the bet but not the minimum raise.
        last = raised if raised >= p.min_raise() or not p.bet else p.last_raise
        seats = tuple(
            replace(s, acted=False) if i != index else replace(s, acted=True)
            for i, s in enumerate(p.seats)
        )
        return replace(p, seats=seats, bet=street, last_raise=last)
    return _set(p, index, acted=True)


def _not_betting(p: Poker) -> str:
    if not p.in_hand:
        return "no hand is being played"
    awaited = p.awaited_dice()
    if awaited is not None:
        return f"{awaited[0]} throws first"
    return "the hand is over"


def settle(p: Poker) -> tuple[tuple[Award, ...], int]:
    """The pots paid out at the end of a hand, and the odd dollars carried to the next one.

    With one player left they take it all unseen; otherwise every pot (main and side pots, by
    what each all-in player could match) goes to the best hand among those in it, split evenly
    between ties."""
    live = [i for i in _clockwise(p, p.dealer + 1) if p.seats[i].live]
    total = sum(s.put_in for s in p.seats) + p.carry
    if len(live) == 1:
        winner = p.seats[live[0]].name
        return (Award(winner, total, "the pot", "everyone else folded"),), 0
    levels = sorted({p.seats[i].put_in for i in live})
    ranks = {i: best_rank(p.hand_of(p.seats[i]), p.ties) for i in live}
    awards: list[Award] = []
    carry = 0
    below = 0
    for k, level in enumerate(levels):
        amount = sum(min(s.put_in, level) - min(s.put_in, below) for s in p.seats)
        if k == len(levels) - 1:
            amount += sum(max(0, s.put_in - level) for s in p.seats)  # folded money above
        if k == 0:
            amount += p.carry
        below = level
        eligible = [i for i in live if p.seats[i].put_in >= level]
        label = "the pot" if len(levels) == 1 else ("the main pot" if k == 0 else f"side pot {k}")
        if len(eligible) == 1:
            awards.append(Award(p.seats[eligible[0]].name, amount, label, "uncalled: returned"))
            continue
        best = max(ranks[i].key(p.ties) for i in eligible)
        winners = [i for i in eligible if ranks[i].key(p.ties) == best]
        share, odd = divmod(amount, len(winners))
        if p.odd_dollar == "next_pot":
            carry += odd
            odd = 0
        for n, i in enumerate(winners):
            won = share + (1 if n < odd else 0)  # the odd dollars: nearest the dealer's left
            if won:
                awards.append(Award(p.seats[i].name, won, label, ranks[i].words()))
    return tuple(awards), carry


def paid(p: Poker, name: str, amount: int) -> Poker:
    """A player takes money won from the pot."""
    index = _index(p, name)
    return replace(_set(p, index, money=p.seats[index].money + amount), paid=p.paid + amount)


def busted(p: Poker) -> tuple[str, ...]:
    """Players who went all in and lost: "they will be out of the game if they lose the hand"."""
    return tuple(s.name for s in p.seats if s.money == 0)


def end_hand(p: Poker, carry: int) -> Poker:
    """The hand is over: the busted leave, "the deal passes clockwise"."""
    stay = [i for i, s in enumerate(p.seats) if s.money > 0]
    dealer = next((i for i in _clockwise(p, p.dealer + 1) if i in stay), p.dealer)
    seats = tuple(Seat(p.seats[i].name, p.seats[i].money) for i in stay)
    return replace(
        p,
        seats=seats,
        dealer=stay.index(dealer) if dealer in stay else 0,
        phase=Phase.BETWEEN,
        street=0,
        turn=None,
        bet=0,
        last_raise=0,
        community=(),
        carry=carry,
        paid=0,
    )


def leave(p: Poker, name: str) -> Poker:
    """A player collects their money and leaves, between hands ("after a round ends")."""
    if p.in_hand:
        raise IllegalMove(
            f"{name} can leave only after the hand ends: money on the table stays for the round",
            RULE_MONEY,
        )
    index = _index(p, name)
    seats = p.seats[:index] + p.seats[index + 1 :]
    dealer = p.dealer - 1 if index < p.dealer else p.dealer
    return replace(
        p,
        seats=seats,
        dealer=dealer % len(seats) if seats else 0,
        taken=p.taken + p.seats[index].money,
    )


def void_hand(p: Poker) -> Poker:
    """A hand broken off (a fight breaks out): everyone takes back what they put in."""
    seats = tuple(Seat(s.name, s.money + s.put_in) for s in p.seats)
    return replace(p, seats=seats, phase=Phase.BETWEEN, turn=None, paid=0, community=())
