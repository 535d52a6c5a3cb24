// The reference client: plain script, no build step, only the public HTTP API and the
// WebSocket protocol (docs/protocol.md). It keeps the seat's view from snapshots and
// applies the frequent events (bids, cards, tricks) itself; after the rarer ones that
// change a whole hand (a deal, the reveal, the exchange, the score) it asks for a snapshot.
"use strict";

const $ = (id) => document.getElementById(id);
const S = {
  token: sessionStorage.getItem("token"),
  me: JSON.parse(sessionStorage.getItem("me") || "null"),
  ws: null, table: null, game: null, view: null, version: 0, turn: null,
  seq: 0, chosen: new Set(), reconnectDelay: 250,
};
const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
const NAME_OF = (seat) => {
  const s = S.table && S.table.seats[seat];
  if (!s) return `Seat ${seat}`;
  return s.name || (s.bot ? `Bot (${s.bot})` : `Seat ${seat}`);
};

function status(text) { $("status").textContent = text || ""; }

function show(section) {
  for (const id of ["signin", "lobby", "table", "game"]) $(id).hidden = id !== section;
}

async function api(method, path, body) {
  const r = await fetch(path, {
    method, headers: { "content-type": "application/json",
                       ...(S.token ? { authorization: `Bearer ${S.token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = r.status === 204 ? null : await r.json();
  if (!r.ok) {
    if (r.status === 401) signOut();
    throw new Error(data && data.message ? data.message : `HTTP ${r.status}`);
  }
  return data;
}

function cardLabel(code) {
  if (code === "BJ") return "Big ★";
  if (code === "LJ") return "Little ★";
  const rank = code[0] === "T" ? "10" : code[0];
  return rank + SUIT[code[1]];
}

function cardEl(code, tag = "span") {
  const el = document.createElement(tag);
  el.className = "card" + ("HD".includes(code[1]) && code.length === 2 ? " red" : "");
  el.textContent = cardLabel(code);
  el.dataset.card = code;
  return el;
}

// --- sign-in and lobby -------------------------------------------------------------------

function signOut() {
  sessionStorage.clear();
  S.token = null; S.me = null;
  if (S.ws) S.ws.close();
  show("signin");
}

$("guest-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  try {
    const s = await api("POST", "/v1/auth/guest", { name: $("guest-name").value.trim() });
    S.token = s.token; S.me = { player_id: s.player_id, name: s.name };
    sessionStorage.setItem("token", s.token);
    sessionStorage.setItem("me", JSON.stringify(S.me));
    enterLobby();
  } catch (err) { status(err.message); }
});

function enterLobby() {
  $("who").textContent = S.me ? `Signed in as ${S.me.name}` : "";
  S.table = null; S.game = null; S.view = null;
  show("lobby");
  connect();
  offerResume();
}

// After a reload or on a second device: the server knows the games this player sits in.
async function offerResume() {
  try {
    const me = await api("GET", "/v1/me");
    offerGame(me.games[0]);
  } catch (err) { status(err.message); }
}

function offerGame(game) {
  $("resume-box").hidden = !game;
  $("resume").onclick = game ? () => resumeGame(game) : null;
}

async function resumeGame(game) {
  offerGame(null);
  try {
    S.table = game.table_id ? await api("GET", `/v1/tables/${game.table_id}`) : null;
  } catch (err) { S.table = null; }
  openGame(game.game_id, false);
}

function renderTables(tables) {
  const body = $("tables");
  body.replaceChildren();
  for (const t of tables) {
    const tr = document.createElement("tr");
    const players = t.seats.map((s) => s.name || (s.bot ? `bot` : "–")).join(", ");
    for (const text of [t.preset, players, t.free_seats.join(" ")]) {
      const td = document.createElement("td"); td.textContent = text; tr.append(td);
    }
    const td = document.createElement("td");
    const b = document.createElement("button");
    b.textContent = "Join"; b.className = "join-table";
    b.onclick = () => joinTable(api("POST", `/v1/tables/${t.table_id}/join`, {}));
    td.append(b); tr.append(td); body.append(tr);
  }
}

$("create-form").addEventListener("submit", (e) => {
  e.preventDefault();
  joinTable(api("POST", "/v1/tables", { rules: $("preset").value, private: $("private").checked }));
});

$("code-form").addEventListener("submit", (e) => {
  e.preventDefault();
  joinTable(api("POST", "/v1/tables/join", { code: $("code").value.trim() }));
});

async function joinTable(request) {
  try {
    const t = await request;
    S.table = t;
    renderTable();
    send({ type: "subscribe", table_id: t.table_id });
  } catch (err) { status(err.message); }
}

function renderTable() {
  const t = S.table;
  if (!t) return;
  if (t.game_id) return;
  show("table");
  $("table-preset").textContent = `(${t.preset}${t.private ? ", private" : ""})`;
  $("table-code").replaceChildren();
  if (t.code) {
    const c = document.createElement("span");
    c.className = "code"; c.id = "room-code"; c.textContent = t.code;
    $("table-code").append("room code ", c);
  }
  $("seats").replaceChildren(...t.seats.map((s) => {
    const li = document.createElement("li");
    li.textContent = s.player_id ? s.name : s.bot ? `Bot (${s.bot})` : "empty";
    return li;
  }));
  const host = S.me && t.host === S.me.player_id;
  $("host-controls").hidden = !host;
  $("banter").checked = t.banter;
  $("rules").textContent = JSON.stringify(t.rules, null, 1);
}

$("fill-bots").onclick = () => tableCall("POST", "bots", { level: $("bot-level").value });
$("start").onclick = () => tableCall("POST", "start");
$("banter").onchange = () => tableCall("PATCH", "", { banter: $("banter").checked });
$("leave-table").onclick = async () => { await tableCall("POST", "leave"); enterLobby(); };

async function tableCall(method, what, body) {
  try {
    S.table = await api(method, `/v1/tables/${S.table.table_id}${what ? "/" + what : ""}`, body);
    renderTable();
    if (S.table.game_id && S.game !== S.table.game_id) openGame(S.table.game_id);
  } catch (err) { status(err.message); }
}

// --- the socket --------------------------------------------------------------------------

function connect() {
  if (S.ws && S.ws.readyState <= 1) return;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/v1/ws?token=${encodeURIComponent(S.token)}`);
  S.ws = ws;
  ws.onopen = () => {
    S.reconnectDelay = 250;
    status("");
    send({ type: "watch_tables" });
    // Resume from what the page holds; with no view yet, ask for a snapshot.
    if (S.game) send({ type: "subscribe", game_id: S.game, ...(S.view ? { since: S.version } : {}) });
    else if (S.table) send({ type: "subscribe", table_id: S.table.table_id });
  };
  ws.onmessage = (m) => onFrame(JSON.parse(m.data));
  ws.onclose = (e) => {
    if (S.ws !== ws || !S.token) return;
    if (e.code === 4401) { status("Your session ended; sign in again."); signOut(); return; }
    status("Connection lost; reconnecting…");
    setTimeout(connect, S.reconnectDelay);
    S.reconnectDelay = Math.min(S.reconnectDelay * 2, 5000);
  };
}

function send(frame) {
  if (S.ws && S.ws.readyState === 1) S.ws.send(JSON.stringify(frame));
}

function command(type, extra = {}) {
  S.seq += 1;
  send({ type, command_id: `${Date.now().toString(36)}-${S.seq}`, game_id: S.game,
         seat: S.view.seat, ...extra });
}

function onFrame(f) {
  switch (f.type) {
    case "table_list": renderTables(f.tables); break;
    case "table":
      if (S.table && f.table.table_id === S.table.table_id) {
        S.table = f.table;
        if (f.table.game_id && S.game !== f.table.game_id) openGame(f.table.game_id);
        else renderTable();
      }
      break;
    case "snapshot":
      if (f.game_id !== S.game) break;
      S.view = f.view; S.version = f.version;
      S.turn = { waiting: f.view.waiting, deadlines: f.view.deadlines, bank: f.view.bank,
                 legal_cards: f.view.legal_cards, legal_bids: f.view.legal_bids,
                 blind_nil_offered: f.view.blind_nil_offered, pass_count: f.view.pass_count };
      renderGame();
      break;
    case "event": if (f.game_id === S.game) onEvent(f); break;
    case "error":
      status(`${f.message} (${f.code})`);
      if (f.code === "token_expired") signOut();
      break;
    case "chat": if (f.game_id === S.game) addChat(f); break;
    case "note":  // a match or a tournament round seated this player somewhere
      if ((f.note.kind === "match_started" || f.note.kind === "tournament_call")
          && f.note.game_id !== S.game) offerGame(f.note);
      break;
    default: break;
  }
}

// --- the game ----------------------------------------------------------------------------

function openGame(gameId, spectate = mySeatAtTable() === null) {
  S.game = gameId; S.view = null; S.version = 0;
  $("chatlog").replaceChildren();
  $("sheet").replaceChildren();
  show("game");
  send({ type: "subscribe", game_id: gameId, spectate });
}

function mySeatAtTable() {
  if (!S.table || !S.me) return null;
  const i = S.table.seats.findIndex((s) => s.player_id === S.me.player_id);
  return i < 0 ? null : i;
}

const REFRESH = new Set(["HandDealt", "BidsRevealed", "CardsExchanged", "HandScored",
                         "GameEnded", "SeatTakenByBot", "SeatReclaimed", "GameStarted"]);

function onEvent(f) {
  const v = S.view;
  if (!v) return;
  const e = f.event;
  S.version = f.version;
  S.turn = f.turn;
  if (e.type === "BidPlaced") {
    v.has_bid[e.seat] = true;
    v.bids[e.seat] = e.bid >= 0 ? e.bid : null;
  } else if (e.type === "CardPlayed") {
    v.trick = [...v.trick, { seat: e.seat, card: e.card }];
    v.cards_left[e.seat] -= 1;
    if (e.seat === v.seat && v.hand) v.hand = v.hand.filter((c) => c !== e.card);
    if (v.premove === e.card) v.premove = null;
    v.phase = "play";
  } else if (e.type === "TrickWon") {
    v.tricks[e.seat] += 1;
    v.last_trick = e.cards;
    v.trick = [];
  } else if (e.type === "PremoveSet") {
    v.premove = e.card;
  } else if (e.type === "PremoveCancelled" || e.type === "PremoveDropped") {
    v.premove = null;
  } else if (e.type === "CardsLooked" && e.seat === v.seat) {
    send({ type: "snapshot", game_id: S.game });
  }
  if (REFRESH.has(e.type)) send({ type: "snapshot", game_id: S.game });
  renderGame();
}

function renderGame() {
  const v = S.view, t = S.turn;
  if (!v) return;
  const me = v.seat === null ? 0 : v.seat;
  const team = me % 2;
  $("headline").textContent =
    `${v.phase === "over" ? "Game over" : `Hand ${v.hand_no}`} · ${v.rules ? v.rules.preset : ""} · `
    + `Us ${v.scores[team]} (${v.bags[team]} bags) · Them ${v.scores[1 - team]} (${v.bags[1 - team]} bags)`
    + (v.seat === null ? " · watching" : "")
    + (v.phase === "over" ? ` · ${v.winner === null ? "a draw" : v.winner === team ? "we won" : "they won"}` : "");
  renderSeats();
  $("trick").replaceChildren(...v.trick.map((tc) => {
    const c = cardEl(tc.card); c.title = NAME_OF(tc.seat); return c;
  }));
  renderHand();
  renderControls();
  renderSheet();
}

// Seats and their clocks only: redrawn every second without touching the hand's buttons.
function renderSeats() {
  const v = S.view, t = S.turn;
  if (!v) return;
  const me = v.seat === null ? 0 : v.seat;
  for (let seat = 0; seat < 4; seat++) {
    const el = $(`pos-${(seat - me + 4) % 4}`);
    const bid = v.bids[seat] === null ? (v.has_bid[seat] ? "bid ✓" : "") : `bid ${v.bids[seat]}`;
    const waiting = t.waiting.includes(seat);
    const left = waiting && t.deadlines[seat] ? Math.max(0, Math.round((t.deadlines[seat] - Date.now()) / 1000)) : null;
    el.className = "seat" + (waiting ? " turn" : "") + (seat === v.seat ? " me" : "");
    el.textContent = `${NAME_OF(seat)}${v.bots[seat] ? " (bot)" : ""} · ${bid} · tricks ${v.tricks[seat]}`
      + (left !== null ? ` · clock ${left}s` + (t.bank[seat] ? ` +${t.bank[seat]} bank` : "") : "");
    el.dataset.seat = seat;
  }
}

function renderHand() {
  const v = S.view, t = S.turn;
  const hand = $("hand");
  hand.replaceChildren();
  if (!v.hand) return;
  const legal = new Set(t.legal_cards || []);
  const myTurn = t.waiting.includes(v.seat) && v.phase === "play";
  for (const code of v.hand) {
    const b = cardEl(code, "button");
    if (t.pass_count) {
      b.classList.toggle("chosen", S.chosen.has(code));
      b.onclick = () => { S.chosen.has(code) ? S.chosen.delete(code) : S.chosen.add(code); renderHand(); renderControls(); };
    } else if (myTurn) {
      b.classList.toggle("legal", legal.has(code));
      b.disabled = !legal.has(code);
      b.onclick = () => command("play", { card: code });
    } else if (v.phase === "play" && v.seat !== null) {
      b.classList.toggle("chosen", v.premove === code);
      b.title = "pre-move: play this card when my turn comes";
      b.onclick = () => v.premove === code ? command("cancel_premove") : command("premove", { card: code });
    } else {
      b.disabled = true;
    }
    hand.append(b);
  }
}

function renderControls() {
  const v = S.view, t = S.turn;
  const box = $("controls");
  box.replaceChildren();
  if (v.seat === null || v.phase === "over") return;
  if (!v.hand && v.phase === "bidding") {
    box.append(button("Look at my cards", () => command("look")));
  }
  if (t.blind_nil_offered) box.append(button("Bid blind nil", () => command("blind_nil")));
  for (const n of v.hand ? t.legal_bids || [] : []) {  // a number needs the cards seen
    const b = button(n === 0 ? "Nil" : String(n), () => command("bid", { bid: n }));
    b.className = "bid"; b.dataset.bid = n;
    box.append(b);
  }
  if (t.pass_count) {
    box.append(button(`Pass ${t.pass_count} card(s) to partner`, () => {
      command("pass", { cards: [...S.chosen] }); S.chosen.clear();
    }, S.chosen.size !== t.pass_count));
  }
}

function button(text, onclick, disabled = false) {
  const b = document.createElement("button");
  b.textContent = text; b.onclick = onclick; b.disabled = disabled;
  return b;
}

function renderSheet() {
  const v = S.view, me = v.seat === null ? 0 : v.seat, team = me % 2;
  $("sheet").replaceChildren(...v.sheet.map((h) => {
    const tr = document.createElement("tr");
    const us = h.teams[team], them = h.teams[1 - team];
    for (const text of [h.hand_no, `${us.contract}/${us.counted}`, `${them.contract}/${them.counted}`,
                        `${us.score_after} (${us.delta >= 0 ? "+" : ""}${us.delta})`,
                        `${them.score_after} (${them.delta >= 0 ? "+" : ""}${them.delta})`]) {
      const td = document.createElement("td"); td.textContent = text; tr.append(td);
    }
    return tr;
  }));
}

function addChat(f) {
  const p = document.createElement("div");
  p.className = f.bot ? "bot" : "";
  p.textContent = `${f.name || NAME_OF(f.seat)}: ${f.text}`;
  $("chatlog").append(p);
  $("chatlog").scrollTop = $("chatlog").scrollHeight;
}

$("chat-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("chat-text").value.trim();
  if (text && S.game) send({ type: "chat", game_id: S.game, text });
  $("chat-text").value = "";
});
$("mute").onchange = () => send({ type: "mute_bots", game_id: S.game, muted: $("mute").checked });
$("back").onclick = () => {
  if (S.game) send({ type: "unsubscribe", game_id: S.game });
  enterLobby();
};

setInterval(() => { if (S.view && S.view.phase !== "over") renderSeats(); }, 1000);

if (S.token && S.me) enterLobby(); else show("signin");
