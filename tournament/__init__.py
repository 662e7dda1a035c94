"""The tournament domain, beside `server` and `player`.

`config` (what defines a tournament), `schedule` (formats: round-robin,
gauntlet, SPRT; seats, openings and seeds of each game), `openings`,
`adjudication`, `stats` / `ratings` / `sprt` (statistics, pure), `director`
(the protocol client that has a server play the games), `records` (results in
SQLite) and `report` (the results document). docs/TOURNAMENTS.md.
"""
