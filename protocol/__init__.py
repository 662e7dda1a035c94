"""Wire protocol: framing and message schemas shared by the server and the players.

See docs/PROTOCOL.md for the specification.
"""

from protocol.codec import DEFAULT_MAX_FRAME as DEFAULT_MAX_FRAME
from protocol.codec import FrameReader as FrameReader
from protocol.codec import MessageDecoder as MessageDecoder
from protocol.codec import client_message_decoder as client_message_decoder
from protocol.codec import encode_frame as encode_frame
from protocol.codec import encode_message as encode_message
from protocol.codec import server_message_decoder as server_message_decoder
from protocol.errors import ConnectionClosed as ConnectionClosed
from protocol.errors import ProtocolError as ProtocolError
from protocol.messages import PROTOCOL_VERSION as PROTOCOL_VERSION
