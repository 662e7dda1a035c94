"""The player runtime's public names, from the modules that hold them.

The runtime is split by responsibility: `player.errors` (what can go wrong),
`protocol.client` (the one protocol client: transport, connecting with backoff, ping),
`player.matchplay` (playing a match: agent calls, budgets),
`player.runtime` (sessions, reconnection, `PlayerClient`, `run_player`) and
`player.results` (a finished match's result). Import from here or from them.
"""

from player.errors import AgentError as AgentError
from player.errors import ClientError as ClientError
from player.errors import ConnectionLost as ConnectionLost
from player.errors import ResignMatch as ResignMatch
from player.errors import ServerProtocolError as ServerProtocolError
from player.errors import ServerRejected as ServerRejected
from player.errors import ServerUnreachable as ServerUnreachable
from player.results import MatchResult as MatchResult
from player.runtime import INBOX_SIZE as INBOX_SIZE
from player.runtime import RECOVERABLE_FATAL as RECOVERABLE_FATAL
from player.runtime import REJOIN_REFUSED as REJOIN_REFUSED
from player.runtime import PlayerClient as PlayerClient
from player.runtime import PlayerConfig as PlayerConfig
from player.runtime import default_player_name as default_player_name
from player.runtime import run_player as run_player
from protocol.client import CLIENT_ID as CLIENT_ID
from protocol.client import SERVER_MAX_FRAME as SERVER_MAX_FRAME
from protocol.client import Backoff as Backoff
from protocol.client import Connection as Connection
from protocol.client import Connector as Connector
from protocol.client import PingResult as PingResult
from protocol.client import open_connection as open_connection
from protocol.client import ping_server as ping_server
