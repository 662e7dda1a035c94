"""Accounts at ``hello`` (server/accounts.py): a resident bot's name and its key."""

from __future__ import annotations

import pytest

from server.accounts import AccountError, Accounts


@pytest.mark.parametrize("mode", ["open", "registered"])
async def test_a_resident_name_is_proven_by_its_key_alone(mode: str) -> None:
    accounts = Accounts(None, mode=mode, registration=True, residents={"gnugo": "k" * 32})
    assert await accounts.authenticate("gnugo", "k" * 32) == "gnugo"
    with pytest.raises(AccountError) as wrong:
        await accounts.authenticate("gnugo", "not the key")
    assert wrong.value.code == "bad_password"
    with pytest.raises(AccountError) as none:
        await accounts.authenticate("gnugo", "")
    assert none.value.code == "name_registered"
    assert "resident bot of this server" in none.value.message
    # watching stays open under any name; other names are as before
    assert await accounts.authenticate("gnugo", "", player=False) is None
    if mode == "open":
        assert await accounts.authenticate("alice", "") is None
