"""`--ladder-resident [NAME=][BOT@]AGENTSPEC` read into a ladder's residents
(server/ladder_spec.py); the other ladder flags are driven through `arena serve` in
tests/arena_cli/test_ladder_cmd.py."""

from __future__ import annotations

import pytest

from server.ladder_spec import LadderSpec, ResidentSpec, parse_ladder, with_resident


def kind(agent: str) -> str:
    """A default name as `arena serve` gives one: here, the agent's kind."""
    return agent.partition(":")[0]


def residents(ladders: list[LadderSpec], text: str) -> dict[str, tuple[ResidentSpec, ...]]:
    return {spec.name: spec.residents for spec in with_resident(ladders, text, kind)}


@pytest.mark.parametrize(
    ("text", "ladder", "resident"),
    [
        ("random", "c4", ResidentSpec("random", "random")),
        ("c4=random", "c4", ResidentSpec("random", "random")),
        ("mcts:time=0.2", "c4", ResidentSpec("mcts", "mcts:time=0.2")),
        ("c4=m2@mcts:time=0.2", "c4", ResidentSpec("m2", "mcts:time=0.2")),
        # ladder names may hold '=' and ':': a known one is recognised first
        (
            "go:size=9=gnugo@engine:cmd=gnugo",
            "go:size=9",
            ResidentSpec("gnugo", "engine:cmd=gnugo"),
        ),
        # an '@' inside the agent's options is not a name
        ("engine:cmd=x,args=a@b", "c4", ResidentSpec("engine", "engine:cmd=x,args=a@b")),
    ],
)
def test_a_resident_is_read_into_its_ladder(text: str, ladder: str, resident: ResidentSpec) -> None:
    ladders = [parse_ladder("c4=connect4")]
    if ladder != "c4":
        ladders = [parse_ladder("go:size=9")]  # named by its game spec
    assert residents(ladders, text)[ladder] == (resident,)


def test_two_ladders_need_the_ladder_named() -> None:
    ladders = [parse_ladder("a=tictactoe"), parse_ladder("b=connect4")]
    with pytest.raises(ValueError, match=r"name the ladder \(there are 2: a, b\)"):
        with_resident(ladders, "random", kind)
    both = with_resident(with_resident(ladders, "a=random", kind), "b=random", kind)
    assert [spec.residents for spec in both] == [(ResidentSpec("random", "random"),)] * 2


def test_a_bad_default_name_says_how_to_name_it() -> None:
    ladders = [parse_ladder("t=tictactoe")]
    with pytest.raises(ValueError, match="a bot's name is 1-64 letters"):
        with_resident(ladders, "random", lambda agent: "GNU Go 3.8")
    with pytest.raises(ValueError, match="no agent"):
        with_resident(ladders, "t=x@", kind)
