// The page router: one shell (index.html) for every page path.
import { showLobby, showTournament } from "./lobby.js";
import { showWatch, showPlay } from "./live.js";
import { showReplay } from "./replay.js";
import { showLadders, showLadder, showLadderBot } from "./ladders.js";
import { h } from "./protocol.js";

const app = document.getElementById("app");
const path = location.pathname;
let match;
try {
  if (path === "/" || path === "") showLobby(app);
  else if ((match = path.match(/^\/watch\/([^/]+)$/))) showWatch(app, decodeURIComponent(match[1]));
  else if ((match = path.match(/^\/replay\/([^/]+)$/))) showReplay(app, decodeURIComponent(match[1]));
  else if ((match = path.match(/^\/tournament\/([^/]+)$/))) showTournament(app, decodeURIComponent(match[1]));
  else if (path === "/play") showPlay(app);
  else if (path === "/ladders") showLadders(app);
  else if ((match = path.match(/^\/ladders\/([^/]+)$/))) showLadder(app, decodeURIComponent(match[1]));
  else if ((match = path.match(/^\/ladders\/([^/]+)\/bots\/(.+)$/))) {
    showLadderBot(app, decodeURIComponent(match[1]), decodeURIComponent(match[2]));
  }
  else app.replaceChildren(h("p", {}, "No such page. ", h("a", { href: "/" }, "Lobby")));
} catch (error) {
  app.replaceChildren(h("p", { className: "error" }, String(error)));
}
