"""Engines: external programs as players, over GTP, the Gomocup protocol or our text protocol.

`player.engines.agent` registers the ``engine`` agent kind; `process` owns the
subprocess; `text`, `gtp` and `gomocup` are the protocol adapters; `mapping`
holds the per-game coordinates of the board protocols; `config` reads specs
and engines files. docs/ENGINES.md describes the protocols as we speak them.
"""
