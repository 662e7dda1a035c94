"""Pure game rules: no I/O, no clocks, no search. See `games.base.Game`."""

from games.base import Game as Game
from games.base import Option as Option
from games.base import Outcome as Outcome
from games.base import Termination as Termination
from games.base import colour_result_text as colour_result_text
from games.base import result_text as result_text
from games.base import stored_result_text as stored_result_text
from games.errors import GameError as GameError
from games.errors import IllegalMoveError as IllegalMoveError
from games.errors import InvalidMoveError as InvalidMoveError
from games.errors import InvalidStateError as InvalidStateError
from games.errors import UnknownGameError as UnknownGameError
from games.registry import available_games as available_games
from games.registry import game_class as game_class
from games.registry import make_game as make_game
from games.registry import parse_options as parse_options
from games.registry import register as register
