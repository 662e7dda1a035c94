"""The web front door of the arena server: pages, a WebSocket and a read-only JSON API.

A second door of the same server, not a second server: the WebSocket is
wrapped as a byte stream of protocol frames (`WebSocketStream`) and handed to
`ArenaServer.handle_connection`, so a browser is one more protocol client
with the same validation, limits and error codes as a TCP one.
"""

from server.web.app import create_app as create_app
from server.web.app import serve_web as serve_web
from server.web.config import WebConfig as WebConfig
from server.web.config import parse_web_address as parse_web_address
from server.web.stream import WebSocketStream as WebSocketStream
