// The reference client: plain script, no build step, only the public HTTP API and the
// WebSocket protocol (docs/protocol.md). It keeps the seat's view from snapshots and
// applies the frequent events (bids, cards, tricks) itself; after the rarer ones that
// change a whole hand (a deal, the reveal, the exchange, the score) it asks for a snapshot.
"use strict";

const $ = (id) => document.getElementById(id);
const S = {
  token: localStorage.getItem("token"),
  me: JSON.parse(localStorage.getItem("me") || "null"),
  ws: null, table: null, game: null, view: null, version: 0, turn: null,
  seq: 0, chosen: new Set(), reconnectDelay: 250,
  held: null,        // the finished trick kept on the table a moment: {cards, winner, until}
  lastTrick: null,   // {cards (seat order), winner}
  handResult: null,  // a line on the hand just scored, shown until the next hand's first card
  statusAt: 0,
  statusN: 0,        // how many times the status line was set: a call's success clears only older words
  bounce: null,      // why the pre-move just bounced, shown with the turn cue
  watchCode: null,   // the room code a private game is watched with (sent again on reconnect)
  asked: null,       // a play_again_asked note not answered yet
  offer: null,       // a match offered to this player: the match_offered note, while it stands
  ratingChanges: {}, // game_id -> the rating_changed note of a rated game of this player
  started: {},       // game_id -> the match_started note of a match this player sat in
  origin: null,      // the open game's tournament (GET /v1/games/{id}'s "tournament"), if any
  tvEnded: null,     // the game TV last saw end: its next game is on its way
};
const SIDES = ["south", "west", "north", "east"];

// --- names: one way to name a seat everywhere -------------------------------------------

// A bot is "Bot N (level)", N being its seat + 1, on the table page, in the game and in chat.
function botName(seat, level, name) { return `${name || `Bot ${seat + 1}`} (${level})`; }

// A guest's name is no registered one (anyone may pick it): say so wherever it shows.
function personName(s) { return s.guest ? `${s.name} (guest)` : s.name; }

function NAME_OF(seat) {
  const s = S.table && S.table.seats[seat];
  if (s && s.bot) return botName(seat, s.bot, s.name);
  if (s && s.name) return personName(s);
  const p = S.view && S.view.players[seat];
  if (p && p.startsWith("bot:")) return botName(seat, p.slice(4));
  return `Seat ${seat}`;
}

// A tournament's game names its teams too (home at seats 0 and 2): "Aces (Ada & Ben)".
function teamNames(team) {
  const players = `${NAME_OF(team)} & ${NAME_OF(team + 2)}`;
  const t = S.origin;
  return t && t.home && t.away ? `${[t.home, t.away][team]} (${players})` : players;
}

// --- status line: errors say what went wrong, and go once the situation changes ---------

// A refusal shows in the header and next to what the player just did: in the game, on the
// dock's line above the bids and the hand; elsewhere, under the button or form last used
// (say.js).
function status(text) {
  $("status").textContent = text || ""; S.statusAt = Date.now(); S.statusN += 1;
  $("move-error").textContent = text && !$("game").hidden ? text : "";
  sayNear(text, !$("game").hidden);  // in the game the dock's line says it
}

function clearStatus() { if ($("status").textContent || $("near-error")) status(""); }

function show(section) {
  for (const id of ["signin", "lobby", "profile", "table", "game"]) {
    if ($(id).hidden === (id === section)) clearStatus();
    $(id).hidden = id !== section;
  }
  $("sign-out").hidden = section === "signin";
  $("nav").hidden = section === "signin";
  // Leaving a player's page by a button, not a link: the address says home again.
  if (section !== "profile" && location.hash.startsWith("#/players/")) history.replaceState(null, "", "#/");
  if (S.me) $("my-profile").href = `#/players/${encodeURIComponent(S.me.player_id)}`;
}

async function api(method, path, body) {
  const asked = S.statusN;
  const r = await fetch(path, {
    method, headers: { "content-type": "application/json",
                       ...(S.token ? { authorization: `Bearer ${S.token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = r.status === 204 ? null : await r.json();
  if (!r.ok) {
    if (r.status === 401 && S.token) signOut();
    const err = new Error(data && (data.code || data.message)
      ? plainError(data) : `The server answered ${r.status}: try again.`);
    err.code = data && data.code;
    err.until = data && data.until;
    err.status = r.status;
    throw err;
  }
  // A success clears an earlier refusal, never one said while this call was under way.
  if (S.statusN === asked) clearStatus();
  return data;
}


// --- cards: their faces are drawn by /cards.js, shared with the replay ------------------

// The trumps that rank above the ace of spades in each deck, lowest first (engine/cards.py).
function topTrumps(rules) {
  const deuces = rules.deuce_order === "spade_high" ? ["2D", "2S"] : ["2S", "2D"];
  switch (rules.deck) {
    case "jokers_deuces": return [...deuces, "LJ", "BJ"];
    case "jokers": return ["LJ", "BJ"];
    case "deuces": return deuces;
    case "deuce_ace": return ["2S"];
    default: return [];
  }
}

const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };  // spades first, colours alternating
const RANKS = "23456789TJQKA";

// Spades (with the elevated trumps on top) first, then each suit, high to low.
function sortHand(hand, rules) {
  const top = rules ? topTrumps(rules) : [];
  const key = (code) => {
    const i = top.indexOf(code);
    if (i >= 0) return [0, 13 + i];
    return [SUIT_ORDER[code[1]], RANKS.indexOf(code[0])];
  };
  return [...hand].sort((a, b) => { const x = key(a), y = key(b); return x[0] - y[0] || y[1] - x[1]; });
}

// --- rules in words ----------------------------------------------------------------------

function clocksOf(r) {
  return r.blitz ? { bid_ms: 15000, play_ms: 7000, bank_blocks: 1, bank_block_ms: 10000 } : r.clocks;
}

function rulesSummary(r) {
  const out = [];
  const top = topTrumps(r).slice().reverse().map(cardLabel);
  out.push(r.deck === "standard" ? "52 cards; spades are trumps."
    : `Spades are trumps; above the ace of spades rank ${top.join(", ")} (highest first).`);
  out.push(r.bidding === "simultaneous" ? "Bids are secret, revealed once all four have bid."
    : "Bids go in turn, starting left of the dealer.");
  if (r.board) out.push(`Each team must bid at least ${r.board} together.`);
  if (!r.nil) out.push("No nil bids.");
  else {
    out.push(`Nil: +${r.nil_value} if the bidder takes no trick, −${r.nil_value} if not.`);
    if (r.blind_nil) {
      out.push(`Blind nil (before looking): ±${r.blind_nil_value}, for a team ${r.blind_nil_margin} or more behind`
        + (r.blind_nil_pass ? `; partners then swap ${r.blind_nil_pass} card(s).` : "."));
    }
    out.push({ bags_scored: "Tricks of a failed nil count as bags.",
               bags_unscored: "Tricks of a failed nil are bags worth no points.",
               nothing: "Tricks of a failed nil count for nothing.",
               help_partner: "Tricks of a failed nil help the partner's contract." }[r.failed_nil]);
  }
  out.push(`Every ${r.bag_limit} bags cost ${r.bag_penalty} points`
    + (r.bag_carry ? "; extra bags carry over." : "; the bag count then starts over."));
  if (r.boston === "bonus") out.push(`Boston (all 13 tricks): +${r.boston_bonus}.`);
  if (r.boston === "win") out.push("Boston (all 13 tricks) wins the match on the spot.");
  if (r.ten_for_200) out.push("Bidding and taking 10 or more scores double.");
  const ends = [];
  if (r.target !== null) ends.push(`first team to ${r.target}`);
  if (r.max_hands !== null) ends.push(r.max_hands === 1 ? "after 1 hand" : `after ${r.max_hands} hands`);
  out.push(`The match ends ${ends.join(" or ")}; `
    + (r.tie === "draw" ? "a tie is a draw." : "a tie plays on (sudden death)."));
  if (r.floor !== null) out.push(`A team at ${r.floor} or below loses.`);
  out.push(r.abandon === "bot" ? "A bot plays for a player who leaves."
    : "A player who leaves or runs out of time forfeits the match for the pair.");
  const c = clocksOf(r);
  out.push(`${c.bid_ms / 1000} s to bid, ${c.play_ms / 1000} s to play`
    + (c.bank_blocks ? `, plus a time bank of ${c.bank_blocks} × ${c.bank_block_ms / 1000} s per hand.` : ".")
    + (r.blitz ? " (blitz)" : ""));
  return out;
}

function renderRulesList(el, rules) {
  el.replaceChildren(...rulesSummary(rules).map((t) => {
    const li = document.createElement("li"); li.textContent = t; return li;
  }));
}

// The options a private table's host may change (docs/rules.md); blank number: none.
const EDITABLE = [
  ["target", "number", "Points to win (blank: none)"], ["max_hands", "number", "Hands (blank: no limit)"],
  ["board", "number", "Board (least team bid)"], ["nil", "bool", "Nil allowed"],
  ["nil_value", "number", "Nil value"], ["blind_nil", "bool", "Blind nil"],
  ["bag_limit", "number", "Bags per penalty"], ["bag_penalty", "number", "Bag penalty"],
  ["boston", ["off", "bonus", "win"], "Boston"],
  ["deck", ["standard", "jokers_deuces", "jokers", "deuces", "deuce_ace"], "Deck"],
  ["bidding", ["sequential", "simultaneous"], "Bidding"],
  ["failed_nil", ["bags_scored", "bags_unscored", "nothing", "help_partner"], "Failed nil"],
  ["tie", ["play_on", "draw"], "A tie"], ["abandon", ["bot", "forfeit"], "Who leaves"],
  ["blitz", "bool", "Blitz clocks"],
];

function renderRulesEditor(t) {
  const box = $("rules-fields");
  box.replaceChildren(...EDITABLE.map(([name, kind, label]) => {
    const l = document.createElement("label");
    let input;
    if (Array.isArray(kind)) {
      input = document.createElement("select");
      for (const o of kind) { const op = document.createElement("option"); op.textContent = o; input.append(op); }
      input.value = t.rules[name];
    } else {
      input = document.createElement("input");
      input.type = kind === "bool" ? "checkbox" : "number";
      if (kind === "bool") input.checked = t.rules[name];
      else input.value = t.rules[name] === null ? "" : t.rules[name];
    }
    input.name = name; input.id = `rule-${name}`;
    l.append(label + " ", input);
    return l;
  }));
}

function editedRules() {
  const out = {};
  for (const [name, kind] of EDITABLE) {
    const input = $(`rule-${name}`);
    let value;
    if (kind === "bool") value = input.checked;
    else if (kind === "number") value = input.value === "" ? null : Number(input.value);
    else value = input.value;
    if (JSON.stringify(value) !== JSON.stringify(S.table.rules[name])) out[name] = value;
  }
  return out;
}

$("rules-editor").addEventListener("submit", async (e) => {
  e.preventDefault();
  const changes = editedRules();
  if (Object.keys(changes).length) await tableCall("PATCH", "rules", changes);
});
$("rules-reset").onclick = () => tableCall("POST", "rules/reset");

// --- sign-in and lobby -------------------------------------------------------------------

function signOut() {
  localStorage.removeItem("token"); localStorage.removeItem("me");
  S.token = null; S.me = null; S.table = null; S.game = null; S.view = null;
  if (S.ws) S.ws.close();
  $("who").textContent = "";
  show("signin");
}

function signedIn(s) {
  S.token = s.token; S.me = { player_id: s.player_id, name: s.name };
  localStorage.setItem("token", s.token);
  localStorage.setItem("me", JSON.stringify(S.me));
  enterLobby();
}

function signInForm(form, path, fields) {
  $(form).addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = {};
    for (const [key, id] of Object.entries(fields)) body[key] = key === "name" ? $(id).value.trim() : $(id).value;
    try { signedIn(await api("POST", path, body)); } catch (err) { status(err.message); }
  });
}
signInForm("guest-form", "/v1/auth/guest", { name: "guest-name" });
signInForm("login-form", "/v1/auth/login", { name: "login-name", password: "login-password" });
signInForm("register-form", "/v1/auth/register", { name: "register-name", password: "register-password" });
$("sign-out").onclick = signOut;

// One click from the home page to a game: a guest's name is made up, three bots sit down
// and the game starts.
$("play-now").onclick = async () => {
  try {
    const s = await api("POST", "/v1/auth/guest", { name: `Guest${Math.floor(1000 + Math.random() * 9000)}` });
    signedIn(s);
    await quickPlay();
  } catch (err) { status(err.message); }
};
$("quick-play").onclick = () => quickPlay().catch((err) => status(err.message));

async function quickPlay() {
  const t = await api("POST", "/v1/tables", { rules: "quick", private: true });
  await api("POST", `/v1/tables/${t.table_id}/bots`, { level: "basic" });
  await joinTable(api("POST", `/v1/tables/${t.table_id}/start`));
}

// Each preset in a line, said before the table is opened (the table shows them in full).
const PRESET_WORDS = {
  house: "Jokers and deuces rank above the ace of spades; bids are secret; blind nil for a team 100 behind; first to 500.",
  quick: "The house rules over four hands: about a quarter of an hour.",
  classic: "52 cards, bids in turn, nil, spades led only once broken; first to 500.",
  beginner: "52 cards, bids in turn, first to 300; taking all 13 tricks wins on the spot.",
  club: "52 cards, nil tricks count for nothing, −200 loses, a draw may end it; leaving forfeits the match.",
};
function describePreset() { $("preset-words").textContent = PRESET_WORDS[$("preset").value] || ""; }
$("preset").onchange = describePreset;
describePreset();

function enterLobby(keepTv = false) {
  // The lobby's address is home: a game's is left behind, and TV's too unless it is TV's
  // own wait for a game.
  if (location.hash.startsWith("#/games/") || (!keepTv && location.hash === "#/tv")) {
    history.replaceState(null, "", "#/");
  }
  $("who").textContent = S.me ? `Signed in as ${S.me.name}` : "";
  S.table = null; S.game = null; S.view = null; S.held = null; S.lastTrick = null;
  S.watchCode = null; S.origin = null;
  $("lobby-note").hidden = true;
  show("lobby");
  connect();
  offerResume();
  refreshRanked();
  offerAgain();
  refreshLive();
}

// The games being played now (GET /v1/games/live), best-rated first, each to watch.
async function refreshLive() {
  let live;
  try { live = await api("GET", "/v1/games/live?limit=20"); } catch { return; }
  const body = $("live");
  body.replaceChildren();
  for (const g of live.games) {
    const tr = document.createElement("tr");
    const kind = g.origin === "queue" ? "Ranked" : g.origin === "tournament" ? "Tournament"
      : "Table";
    const rating = g.rating === null ? "–" : String(g.rating);
    cell(tr, g.delayed ? `${kind}, a few tricks behind` : kind);
    const who = livePlayers(g);
    const t = g.tournament;
    if (t && t.name) {  // which match it is says more than four bots' names
      const head = document.createElement("strong");
      head.className = "live-match";
      head.textContent = `${t.name}${t.round_name ? `, ${t.round_name}` : ""}: `
        + `${t.home || "?"} v ${t.away || "?"}`;
      who.prepend(head, document.createElement("br"));
    }
    cell(tr, who);
    cell(tr, rating);
    const td = document.createElement("td");
    td.append(button("Watch", () => watchLive(g), false, "watch-live", { game: g.game_id }));
    tr.append(td); body.append(tr);
  }
}
$("live-refresh").onclick = refreshLive;

// The two partnerships, "A & B v C & D": a registered player's name links to their page.
function livePlayers(g) {
  const span = document.createElement("span");
  const seat = (i) => {
    const p = g.players.find((x) => x.seat === i);
    if (!p || p.bot || p.guest || !p.player_id) {
      return document.createTextNode(p ? (p.bot ? botName(p.seat, p.bot, p.name) : p.name || "?") : "?");
    }
    const a = document.createElement("a");
    a.href = `#/players/${encodeURIComponent(p.player_id)}`;
    a.textContent = p.rating ? `${p.name} (${p.rating})` : p.name;
    return a;
  };
  span.append(seat(0), " & ", seat(2), " v ", seat(1), " & ", seat(3));
  return span;
}

// --- TV: the best-rated game being played now, then the next one ----------------------

// "#/tv" watches the top of the live list; when that game ends the next best one follows
// TV_NEXT_MS later, as long as the address stays "#/tv". With nothing on, the lobby shows
// and the list is asked again at the same pace.
const TV_NEXT_MS = 5000;

async function tuneTv(ended = null) {
  if (location.hash !== "#/tv") return;
  let live = null;
  try { live = await api("GET", "/v1/games/live?limit=5"); } catch { /* asked again below */ }
  if (location.hash !== "#/tv") return;
  const g = live && live.games.find((x) => x.game_id !== ended);
  if (!g) {
    if ($("lobby").hidden) {
      if (S.game) send({ type: "unsubscribe", game_id: S.game });
      enterLobby(true);
    }
    status("TV: no game anyone may watch is being played now; looking again in a few seconds.");
    setTimeout(() => tuneTv(ended), TV_NEXT_MS);
    return;
  }
  if (S.game && S.game !== g.game_id) send({ type: "unsubscribe", game_id: S.game });
  await watchLive(g);
}

function tvNext(parts) {
  if (location.hash !== "#/tv" || S.view.seat !== null) return;
  const p = document.createElement("p");
  p.id = "tv-next";
  p.textContent = "TV: the next best-rated game comes on in a few seconds.";
  parts.push(p);
  if (S.tvEnded === S.game) return;  // renderEnd runs on every frame after the end
  S.tvEnded = S.game;
  const ended = S.game;
  setTimeout(() => { if (S.game === ended) tuneTv(ended); }, TV_NEXT_MS);
}

async function watchLive(g) {
  let table = null;
  try { table = await api("GET", `/v1/tables/${g.table_id}`); } catch { /* seats from the game */ }
  watch({ ...(table || { table_id: g.table_id, seats: [] }), game_id: g.game_id });
}

// Someone at a table of ours asks to play again: answer from the lobby, or at the end
// of that game (renderEnd).
function offerAgain() {
  const n = S.asked;
  $("again-box").hidden = !n;
  if (!n) return;
  $("again-text").textContent = `${n.asked_by} asks to play again at your table, same seats.`;
  $("again-yes").onclick = () => playAgain(n.table_id);
  $("again-no").onclick = () => leaveAfterGame(n.table_id).then(enterLobby);
}

// Leaving a table after its game gives the seat up (a bot or an open seat, as its rules say).
async function leaveAfterGame(tableId) {
  S.asked = S.asked && S.asked.table_id === tableId ? null : S.asked;
  try { await api("POST", `/v1/tables/${tableId}/leave`); } catch (err) { /* not seated any more */ }
}

// After a reload or on a second device: the server knows the games this player sits in.
async function offerResume() {
  try {
    const me = await api("GET", "/v1/me");
    offerGame(me.games[0]);
    if (me.offers && me.offers.length) showOffer(me.offers[0]);
  } catch (err) { status(err.message); }
}

// --- a match offer (the ready check of a ranked or tournament match) ----------------------

const ORIGINS = { queue: "A ranked match", tournament: "Your tournament match", table: "A match" };

function showOffer(note) {
  S.offer = note;
  clearStatus();
  $("offer-box").hidden = false;
  $("offer-ready").disabled = $("offer-decline").disabled = false;
  $("offer-ready").textContent = "Ready";
  $("offer-ready").onclick = () => {
    $("offer-ready").disabled = true;
    $("offer-ready").textContent = "Ready ✓";
    note.ready = true;
    tickOffer();
    send({ type: "match_ready", match_id: note.match_id });
  };
  $("offer-decline").onclick = () => send({ type: "match_decline", match_id: note.match_id });
  tickOffer();
}

// The offer counts down (the page's half-second timer redraws it). Once this player pressed Ready the line says so until
// the match starts or falls through; the tab's title calls the player from another tab.
function tickOffer() {
  const o = S.offer;
  $("offer-box").hidden = !o;
  retitle();
  if (!o) return;
  const left = Math.max(0, Math.ceil((o.expires_at - Date.now()) / 1000));
  const others = o.waiting === undefined ? "the other players" : `${o.waiting} more player(s)`;
  $("offer-text").textContent = o.ready
    ? `You are ready. Waiting for ${others} to confirm (${left} s left).`
    : `${ORIGINS[o.origin] || "A match"} is ready${o.rated ? " (rated)" : ""}: confirm within ${left} s.`;
}

// The tab's title: a match to confirm first, then a turn to play.
function retitle() {
  const o = S.offer;
  const v = S.view, t = S.turn;
  const mine = v && t && v.seat !== null && t.waiting.includes(v.seat) && v.phase !== "over";
  const left = o && Math.max(0, Math.ceil((o.expires_at - Date.now()) / 1000));
  document.title = o && !o.ready ? `⏰ Confirm your match (${left} s) · Spades`
    : mine ? "● Your turn · Spades" : "Spades";
}

function onMatch(m) {  // the answer to match_ready / match_decline
  if (!S.offer || S.offer.match_id !== m.match_id) return;
  if (m.state === "ready_check") {
    if (m.ready.includes(S.offer.seat)) S.offer.ready = true;
    S.offer.waiting = 4 - m.ready.length;
    tickOffer();
  } else if (m.state !== "started" && m.state !== "starting") {  // match_started follows those
    S.offer = null; tickOffer();
  }
}

function offerEnded(note) {
  if (!S.offer || S.offer.match_id !== note.match_id) return;
  const mine = note.declined.includes(S.offer.seat);
  S.offer = null;
  const seats = note.absent.map((s) => s + 1).join(", ");
  status(mine ? "You declined the match; it will not start."
    : note.declined.length ? "The match will not start: a player declined."
    : `The match will not start: seat(s) ${seats} did not confirm in time.`);
  tickOffer();
}

function onNote(note) {
  if (note.kind === "match_offered") showOffer(note);
  else if (note.kind === "match_cancelled") offerEnded(note);
  else if (note.kind === "play_again_asked") {
    S.asked = note;
    if (S.game === note.game_id) renderGame(); else offerAgain();
  } else if ((note.kind === "match_started" || note.kind === "tournament_call")
           && note.game_id && note.game_id !== S.game) {
    S.started[note.game_id] = note;  // a call's ready check has no game yet
    const confirmed = S.offer && S.offer.match_id === note.match_id;
    if (confirmed) { S.offer = null; tickOffer(); resumeGame(note); }
    // The table we wait at began its next game: its table frame takes us there.
    else if (!(S.table && note.table_id === S.table.table_id)) offerGame(note);
  } else onQueueNote(note);
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
    tr.dataset.table = t.table_id;
    const players = t.seats.map((s, i) => s.bot ? botName(i, s.bot, s.name)
      : s.name ? personName(s) : "–").join(", ");
    const free = t.free_seats.map((i) => `${i + 1} (${SIDES[i]})`).join(", ");
    for (const text of [t.preset, players, t.state === "open" ? free : "playing"]) {
      const td = document.createElement("td"); td.textContent = text; tr.append(td);
    }
    const td = document.createElement("td");
    if (t.state === "open" && !t.free_seats.length) {
      td.textContent = "full: starting soon";
    } else if (t.state === "open") {
      td.append(button("Join", () => joinTable(api("POST", `/v1/tables/${t.table_id}/join`, {})),
                       false, "join-table", { table: t.table_id }));
    } else {
      td.append(button("Watch", () => watch(t), false, "watch-table", { table: t.table_id }));
    }
    tr.append(td); body.append(tr);
  }
}

$("create-form").addEventListener("submit", (e) => {
  e.preventDefault();
  joinTable(api("POST", "/v1/tables", { rules: $("preset").value, private: $("private").checked }));
});

$("code-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const seat = $("code-seat").value, code = $("code").value.trim();
  try {
    await joinTable(api("POST", "/v1/tables/join", { code, seat: seat === "" ? null : Number(seat) }), true);
  } catch (err) {
    if (err.code !== "table_started") { status(err.message); return; }
    // The game has begun: the room code lets us watch it.
    try { watch(await api("POST", "/v1/tables/watch", { code }), code); } catch (e2) { status(e2.message); }
  }
});

// rethrow: let the caller handle a refusal (the room-code form watches a started game).
async function joinTable(request, rethrow = false) {
  try {
    const t = await request;
    S.table = t;
    if (t.game_id) { openGame(t.game_id); return; }
    renderTable();
    send({ type: "subscribe", table_id: t.table_id });
  } catch (err) { if (rethrow) throw err; status(err.message); }
}

function watch(t, code = null) {
  S.table = t;
  S.watchCode = code;
  openGame(t.game_id, true);
}

function renderTable() {
  const t = S.table;
  if (!t || t.game_id) return;
  show("table");
  $("table-preset").textContent = `(${t.preset}${t.private ? ", private" : ""})`;
  $("table-code").replaceChildren();
  if (t.code) {
    const c = document.createElement("span");
    c.className = "code"; c.id = "room-code"; c.textContent = t.code;
    $("table-code").append("room code ", c);
  }
  const mine = mySeatAtTable();
  const again = t.play_again;
  $("again-status").hidden = !again;
  if (again) {
    const waiting = t.seats.filter((s, i) => s.player_id && !again[i]).map(personName);
    $("again-status").textContent = "Playing again at this table, same seats. "
      + (waiting.length ? `Waiting for ${waiting.join(", ")} to agree` : "Waiting for a player for the open seat")
      + "; the game starts once every seat agreed.";
  }
  $("seats").replaceChildren(...t.seats.map((s, i) => {
    const li = document.createElement("li");
    li.className = `team${i % 2}`;
    li.textContent = s.player_id ? personName(s) : s.bot ? botName(i, s.bot, s.name) : "empty";
    if (again && s.player_id) li.append(" ", tag(again[i] ? "plays again" : "asked", again[i] ? "agreed" : "asked"));
    if (!s.player_id && !s.bot && mine !== i) {
      li.append(" ", button("Sit here", () => tableCall("POST", "join", { seat: i }), false, "sit"));
    }
    return li;
  }));
  const host = S.me && t.host === S.me.player_id;
  $("host-controls").hidden = !host;
  const empty = t.seats.filter((s) => !s.player_id && !s.bot).length;
  $("start").textContent = again ? "Start now (bots for those who have not agreed)"
    : empty ? `Start the game (bots take the ${empty} empty seat${empty === 1 ? "" : "s"})`
      : "Start the game";
  $("again-agree").hidden = !(again && mine !== null && !again[mine]);
  $("banter").checked = t.banter;
  renderRulesList($("rules-summary"), t.rules);
  $("rules-editor").hidden = !(host && t.private && t.state === "open");
  if (!$("rules-editor").hidden && !$("rules-editor").contains(document.activeElement)) renderRulesEditor(t);
}

$("fill-bots").onclick = () => tableCall("POST", "bots", { level: $("bot-level").value });
$("start").onclick = () => tableCall("POST", "start");
$("again-agree").onclick = () => playAgain(S.table.table_id);
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
    clearStatus();
    send({ type: "watch_tables" });
    // Resume from what the page holds; with no view yet, ask for a snapshot.
    if (S.game) send({ type: "subscribe", game_id: S.game, spectate: S.spectating,
                       ...(S.spectating && S.watchCode ? { code: S.watchCode } : {}),
                       ...(S.view ? { since: S.version } : {}) });
    else if (S.table) send({ type: "subscribe", table_id: S.table.table_id });
  };
  ws.onmessage = (m) => onFrame(JSON.parse(m.data));
  ws.onclose = (e) => {
    if (S.ws !== ws || !S.token) return;
    if (e.code === 4401) { signOut(); status("Your session ended; sign in again."); return; }
    if (e.code === 1012) {  // the server is restarting: another copy takes us at once
      status("The server is restarting; reconnecting…");
      setTimeout(connect, 0);
      return;
    }
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
  S.held = null;  // acting skips the pause on a finished trick
  S.bounce = null;
  const id = `${Date.now().toString(36)}-${S.seq}`;
  send({ type, command_id: id, game_id: S.game, seat: S.view.seat, ...extra });
  return id;
}

function onFrame(f) {
  switch (f.type) {
    case "table_list": renderTables(f.tables); break;
    case "table":
      if (S.table && f.table.table_id === S.table.table_id) {
        S.table = f.table;
        // A new game at this table: in it if we still sit here; a spectator of the last
        // one, or one whose seat went to a bot, stays on the end of the game it watched.
        if (f.table.game_id && S.game !== f.table.game_id && (!S.game || mySeatAtTable() !== null)) {
          openGame(f.table.game_id);
        } else if (S.game) renderGame();
        else renderTable();
      }
      break;
    case "snapshot":
      if (f.game_id !== S.game || (S.view && f.version < S.version)) break;  // never go back
      S.view = f.view; S.version = f.version;
      S.turn = { waiting: f.view.waiting, deadlines: f.view.deadlines, bank: f.view.bank,
                 legal_cards: f.view.legal_cards, legal_bids: f.view.legal_bids,
                 blind_nil_offered: f.view.blind_nil_offered, pass_count: f.view.pass_count };
      renderGame();
      break;
    case "subscribed":  // a delayed watcher is told so: the table shows less than the players see
      if (f.game_id === S.game) { S.delayed = f.delayed; if (S.view) renderGame(); }
      break;
    case "event": if (f.game_id === S.game) onEvent(f); break;
    case "ack":
      clearStatus();
      if (S.leaving && f.command_id === S.leaving.id) left();
      break;
    case "error":
      status(plainError(f));
      if (f.code === "queue_cooldown" && f.until) {  // the queue line counts it down
        // The server's newer word: a cooldown is what keeps this player out now.
        renderQueue({ ...(S.queue || {}), state: "idle", reason: null, cooldown_until: f.until,
                      blocked_by: "queue_cooldown", games_needed: 0 });
      }
      if (f.code === "token_expired") signOut();
      break;
    case "chat": if (f.game_id === S.game) addChat(f); break;
    case "note": onNote(f.note); break;  // a match wants or seated this player
    case "match": onMatch(f.match); break;
    default: break;
  }
}

// --- the game ----------------------------------------------------------------------------

// spectate: watch without a seat; by default, when the player holds no seat at the table.
function openGame(gameId, spectate = mySeatAtTable() === null) {
  S.game = gameId; S.view = null; S.version = 0; S.held = null; S.lastTrick = null;
  S.handResult = null; S.delayed = false;
  S.spectating = spectate;
  $("chatlog").replaceChildren();
  $("sheet").replaceChildren();
  $("last-trick-box").hidden = true;
  $("end").hidden = true;  // the last game's end, until this one's snapshot says
  $("report-box").hidden = true; reportSaid("");  // a report is of the game it was made on
  show("game");
  // The address names the game: a reload comes back to it (openGameAt), not to the lobby;
  // TV keeps its own address, which brings on the next game.
  if (location.hash !== "#/tv") history.replaceState(null, "", `#/games/${encodeURIComponent(gameId)}`);
  describeOrigin(gameId);
  send({ type: "subscribe", game_id: gameId, spectate,
         ...(spectate && S.watchCode ? { code: S.watchCode } : {}) });
}

// Which tournament, round and teams a game is, or that it is ranked: from the game's summary.
async function describeOrigin(gameId) {
  $("game-origin").textContent = "";
  S.origin = null; S.originKind = null;
  let g;
  const code = S.spectating && S.watchCode ? `?code=${encodeURIComponent(S.watchCode)}` : "";
  // A few tries: a lobby copy draining or a database failing over answers 503 for a
  // moment. Past them the game itself still shows; only its caption is missing.
  for (let wait = 500; !g; wait *= 2) {
    try {
      g = await api("GET", `/v1/games/${encodeURIComponent(gameId)}${code}`);
    } catch (err) {
      if (err.status < 500 || wait > 4000 || S.game !== gameId) return;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  if (S.game !== gameId) return;
  const t = g.tournament;
  S.originKind = g.origin;  // what leaving would cost depends on it
  const tv = location.hash === "#/tv" ? ["TV"] : [];
  let parts = [];
  if (t) {
    const round = t.round_name || (t.round_no ? `Round ${t.round_no}` : "");
    const teams = t.home && t.away ? `${t.home} v ${t.away}` : "";
    // The tournament's name leads to its page (its bracket); the round and teams follow.
    const link = Object.assign(document.createElement("a"), {
      id: "to-tournament-top", href: `/tournaments#${encodeURIComponent(t.tournament_id)}`,
      textContent: t.name || "A tournament" });
    parts = [link, round, teams];
    S.origin = t;
  } else if (g.origin === "queue") {
    parts = ["Ranked game"];
  } else if (tv.length) {
    parts = ["A public table"];
  }
  $("game-origin").replaceChildren(
    ...[...tv, ...parts].filter(Boolean).flatMap((x, i) => (i ? [" · ", x] : [x])));
  if (S.origin && S.view) renderGame();  // the teams by their names
}

function mySeatAtTable() {
  if (!S.table || !S.me) return null;
  const i = S.table.seats.findIndex((s) => s.player_id === S.me.player_id);
  return i < 0 ? null : i;
}

const REFRESH = new Set(["HandDealt", "BidsRevealed", "CardsExchanged", "HandScored",
                         "GameEnded", "SeatTakenByBot", "SeatReclaimed", "GameStarted"]);

function trickPause() { return Number($("trick-pause").value); }

function onEvent(f) {
  const v = S.view;
  if (!v) return;
  const e = f.event;
  S.version = f.version;
  S.turn = f.turn;
  if (f.phase) v.phase = f.phase;
  if (e.type === "BidPlaced") {
    v.has_bid[e.seat] = true;
    v.bids[e.seat] = e.bid >= 0 ? e.bid : null;
    v.blind[e.seat] = e.blind;
  } else if (e.type === "CardPlayed") {
    if (v.trick.length === 0) v.leader = e.seat;
    v.trick = [...v.trick, { seat: e.seat, card: e.card }];
    v.cards_left[e.seat] -= 1;
    if (e.seat === v.seat && v.hand) v.hand = v.hand.filter((c) => c !== e.card);
    if (v.premove === e.card) v.premove = null;
    S.handResult = null;
  } else if (e.type === "TrickWon") {
    v.tricks[e.seat] += 1;
    v.last_trick = e.cards;
    // The event holds the whole trick (seat order): the page may have missed a card.
    const leader = v.trick.length ? v.trick[0].seat : v.leader;
    S.lastTrick = { cards: e.cards, winner: e.seat, leader };
    S.held = { cards: e.cards.map((card, seat) => ({ seat, card })), winner: e.seat, leader,
               until: Date.now() + trickPause() };
    if (trickPause()) setTimeout(renderGame, trickPause() + 20);
    v.trick = [];
    v.leader = e.seat;
  } else if (e.type === "HandScored") {
    const me = v.seat === null ? 0 : v.seat, us = e.teams[me % 2], them = e.teams[1 - me % 2];
    S.handResult = `Hand ${e.hand_no} scored: ${teamNames(me % 2)} ${signed(us.delta)} (now ${us.score_after}), `
      + `${teamNames(1 - me % 2)} ${signed(them.delta)} (now ${them.score_after}).`;
  } else if (e.type === "PremoveSet") {
    v.premove = e.card;
  } else if (e.type === "PremoveCancelled") {
    v.premove = null;
  } else if (e.type === "PremoveDropped") {
    v.premove = null;
    // Said where the player looks when the turn comes; it goes with their next move.
    if (e.seat === v.seat) S.bounce = `your pre-move ${cardLabel(e.card)} went back to your hand: ${premoveReason(e.reason)}`;
  } else if (e.type === "CardsLooked" && e.seat === v.seat) {
    send({ type: "snapshot", game_id: S.game });
  }
  if (REFRESH.has(e.type)) send({ type: "snapshot", game_id: S.game });
  renderGame();
}

function premoveReason(reason) {
  return { must_follow_suit: "you had to follow the suit led",
           spades_not_broken: "spades were not broken yet",
           card_not_in_hand: "the card is no longer in your hand" }[reason] || reason.replaceAll("_", " ");
}

function signed(n) { return n >= 0 ? `+${n}` : `${n}`; }

function bidText(v, seat) {
  if (v.bids[seat] === null) return v.has_bid[seat] ? "has bid" : "";
  if (v.bids[seat] === 0) return v.blind[seat] ? "blind nil" : "nil";
  return `bid ${v.bids[seat]}`;
}

function renderGame() {
  const v = S.view;
  if (!v) return;
  const me = v.seat === null ? 0 : v.seat;
  const team = me % 2;
  const us = v.seat === null ? teamNames(0) : "Us", them = v.seat === null ? teamNames(1) : "Them";
  // A delayed watcher's table before the game's third trick: nothing of it shows yet.
  const hand = v.phase === "over" ? "Game over" : v.hand_no || !S.delayed ? `Hand ${v.hand_no}`
    : "Nothing to see yet: the play shows once three more tricks are won";
  $("headline").textContent = [hand, v.rules ? v.rules.preset : "",
    `${us} ${v.scores[team]} (${v.bags[team]} bags)`,
    `${them} ${v.scores[1 - team]} (${v.bags[1 - team]} bags)`,
    v.seat === null ? `watching${S.delayed && v.phase !== "over" ? ", a few tricks behind the play" : ""}` : "",
  ].filter(Boolean).join(" · ");
  renderBooks();
  renderSeats();
  renderTrick();
  renderTurnCue();
  renderHand();
  renderControls();
  renderSheet();
  renderEnd();
  renderQuit();
  $("hand-result").hidden = !S.handResult;
  $("hand-result").textContent = S.handResult || "";
  if (v.rules) renderRulesList($("game-rules"), v.rules);
}

// Each partnership's books (tricks taken) against the tricks it bid: "Us 2/6 · Them 3/5".
// A nil bids no trick; "?" while a bid is still secret.
function booksText(v) {
  const me = v.seat === null ? 0 : v.seat, team = me % 2;
  const side = (t) => {
    const took = v.tricks[t] + v.tricks[t + 2];
    const bids = [v.bids[t], v.bids[t + 2]];
    return `${took}/${bids.some((b) => b === null) ? "?" : bids[0] + bids[1]}`;
  };
  const us = v.seat === null ? teamNames(0) : "Us", them = v.seat === null ? teamNames(1) : "Them";
  return [[us, team], [them, 1 - team]].map(([name, t]) => [`${name} ${side(t)}`, t]);
}

function renderBooks() {
  const v = S.view, box = $("books");
  box.hidden = v.phase === "over";
  const parts = booksText(v).map(([text, t]) => {
    const s = document.createElement("span"); s.className = `team${t}`; s.textContent = text; return s;
  });
  box.replaceChildren(parts[0], " · ", parts[1]);
}

function renderTrick() {
  const v = S.view;
  const held = S.held && (S.held.until > Date.now() || v.phase === "over") ? S.held : null;
  if (S.held && !held) S.held = null;
  const cards = held ? held.cards : v.trick;
  const leader = held ? held.leader : v.trick.length ? v.trick[0].seat : null;
  const me = v.seat === null ? 0 : v.seat;
  $("trick").replaceChildren(...cards.map((tc) => {
    const c = cardEl(tc.card);
    c.classList.add(`slot-${(tc.seat - me + 4) % 4}`);
    if (held && tc.seat === held.winner) c.classList.add("winner");
    if (tc.seat === leader) c.classList.add("led");
    c.title = `${NAME_OF(tc.seat)}${tc.seat === leader ? " (led)" : ""}`;
    c.dataset.seat = tc.seat;
    return c;
  }));
  $("trick-caption").textContent = held ? `${NAME_OF(held.winner)} takes the trick` : "";
}

function renderTurnCue() {
  const v = S.view, t = S.turn, cue = $("turn-cue");
  const mine = v.seat !== null && t.waiting.includes(v.seat) && v.phase !== "over";
  cue.classList.toggle("mine", mine);
  let text = "";
  if (mine) {
    if (t.pass_count) text = `Your turn: choose ${t.pass_count} card(s) for your partner`;
    else if (v.phase === "bidding") text = v.hand ? "Your turn: bid" : "Your turn: look at your cards, or bid blind nil";
    else text = "Your turn: play a card" + (S.bounce ? ` (${S.bounce})` : "");
  } else if (v.phase !== "over" && t.waiting.length) {
    text = `Waiting for ${t.waiting.map(NAME_OF).join(", ")}`;
  }
  cue.textContent = text;
  cue.title = text;
  retitle();
}

// Seats and their clocks only: redrawn every half second without touching the hand's buttons.
function renderSeats() {
  const v = S.view, t = S.turn;
  if (!v) return;
  const me = v.seat === null ? 0 : v.seat;
  const clocks = v.rules ? clocksOf(v.rules) : null;
  const leader = v.trick.length ? v.trick[0].seat : v.phase === "play" ? v.leader : null;
  const held = S.held;
  for (let seat = 0; seat < 4; seat++) {
    const el = $(`pos-${(seat - me + 4) % 4}`);
    const waiting = t.waiting.includes(seat) && v.phase !== "over";
    el.className = `seat team${seat % 2}` + (waiting ? " turn" : "") + (seat === v.seat ? " me" : "")
      + (held && held.winner === seat ? " won" : "");
    el.dataset.seat = seat;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = NAME_OF(seat) + (seat === v.seat ? " (you)" : "")
      + (v.seat !== null && seat === (v.seat + 2) % 4 ? " (partner)" : "");
    const parts = [name];
    const bid = bidText(v, seat);
    if (bid) parts.push(tag(bid, v.bids[seat] === 0 ? "nil" : "bid"));
    if (seat === leader && v.phase === "play") parts.push(tag("leads", "leader"));
    if (v.bots[seat]) parts.push(tag("bot plays", "bot"));
    const line = document.createElement("div");
    line.textContent = `tricks ${v.tricks[seat]} · ${v.cards_left[seat]} cards`;
    parts.push(line);
    if (waiting && t.deadlines[seat] && clocks) {
      const left = Math.max(0, t.deadlines[seat] - Date.now());
      const full = v.phase === "bidding" ? clocks.bid_ms : clocks.play_ms;
      const bar = document.createElement("div");
      bar.className = "clock" + (left < 5000 ? " low" : "");
      bar.title = "Time to move. When it runs out, a block of the time bank is spent; "
        + "with no bank left a move is made for the seat.";
      const fill = document.createElement("div");
      fill.style.width = `${Math.min(100, (100 * left) / full)}%`;
      bar.append(fill);
      const secs = document.createElement("div");
      secs.className = "muted";
      secs.textContent = `${Math.round(left / 1000)} s` + (t.bank[seat]
        ? ` + bank ${t.bank[seat]} × ${clocks.bank_block_ms / 1000} s` : " · no bank left");
      parts.push(bar, secs);
    }
    el.replaceChildren(...parts);
  }
}

function tag(text, kind) {
  const s = document.createElement("span"); s.className = `tag ${kind}`; s.textContent = text; return s;
}

function renderHand() {
  const v = S.view, t = S.turn;
  const hand = $("hand");
  hand.replaceChildren();
  if (!v.hand) return;
  const legal = new Set(t.legal_cards || []);
  const myTurn = t.waiting.includes(v.seat) && v.phase === "play";
  for (const code of sortHand(v.hand, v.rules)) {
    const b = cardEl(code, "button");
    if (t.pass_count) {
      b.classList.toggle("chosen", S.chosen.has(code));
      b.onclick = () => { S.chosen.has(code) ? S.chosen.delete(code) : S.chosen.add(code); renderHand(); renderControls(); };
    } else if (myTurn) {
      b.classList.toggle("legal", legal.has(code));
      b.disabled = !legal.has(code);
      b.onclick = () => command("play", { card: code });
    } else if ((v.phase === "play" || v.phase === "bidding") && v.seat !== null) {
      // Locked now (while others play, or during the bidding: an opening card), played
      // the moment the turn comes if it is legal then.
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
    box.append(button(n === 0 ? "Nil" : String(n), () => command("bid", { bid: n }), false, "bid", { bid: n }));
  }
  if (t.pass_count) {
    box.append(button(`Pass ${t.pass_count} card(s) to partner`, () => {
      command("pass", { cards: [...S.chosen] }); S.chosen.clear();
    }, S.chosen.size !== t.pass_count));
  }
}

function button(text, onclick, disabled = false, className = "", data = {}) {
  const b = document.createElement("button");
  b.textContent = text; b.onclick = onclick; b.disabled = disabled;
  if (className) b.className = className;
  Object.assign(b.dataset, data);
  return b;
}

$("last-trick").onclick = () => {
  const box = $("last-trick-box");
  box.hidden = !box.hidden;
  if (box.hidden) return;
  const v = S.view, last = S.lastTrick;
  const cards = last ? last.cards : v && v.last_trick;
  if (!cards || !cards.length) { box.textContent = "No trick yet this hand."; return; }
  box.replaceChildren(...cards.map((code, seat) => {
    const row = document.createElement("div");
    row.append(`${NAME_OF(seat)}: `, cardEl(code));
    if (last && last.winner === seat) row.append(" ✔ took it");
    return row;
  }));
};

function renderSheet() {
  const v = S.view, me = v.seat === null ? 0 : v.seat, team = me % 2;
  const head = document.createElement("tr");
  for (const text of ["Hand", teamNames(team), teamNames(1 - team)]) {
    const th = document.createElement("th"); th.textContent = text; head.append(th);
  }
  $("sheet-head").replaceChildren(head);
  $("sheet").replaceChildren(...v.sheet.map((h) => {
    const tr = document.createElement("tr");
    const td = document.createElement("td"); td.textContent = h.hand_no; tr.append(td);
    for (const side of [team, 1 - team]) tr.append(sheetCell(h, side));
    return tr;
  }));
}

// One team's hand: each seat's bid and tricks, then how the points came.
function sheetCell(h, side) {
  const s = h.teams[side];
  const td = document.createElement("td");
  const seats = [side, side + 2].map((seat) => {
    const bid = h.bids[seat] === 0 ? (h.blind[seat] ? "blind nil" : "nil") : `bid ${h.bids[seat]}`;
    return `${NAME_OF(seat)}: ${bid}, took ${h.tricks[seat]}`;
  });
  const notes = [];
  notes.push(s.contract ? `contract ${s.contract}: ${s.made ? "made" : "set"} ${signed(s.contract_points)}` : "both nil");
  if (s.nil_points) notes.push(`nil ${signed(s.nil_points)}`);
  if (s.failed_nil_tricks) notes.push(`failed nil took ${s.failed_nil_tricks}`);
  if (s.bags_gained) notes.push(`bags +${s.bags_gained} (now ${s.bags_after})`);
  if (s.bag_penalty) notes.push(`bag penalty −${s.bag_penalty}`);
  if (s.boston) notes.push(`Boston ${signed(s.boston_points)}`);
  const total = document.createElement("div");
  total.append(`${signed(s.delta)} → `);
  const b = document.createElement("b"); b.textContent = s.score_after; total.append(b);
  const sub = document.createElement("div"); sub.className = "sub";
  sub.textContent = `${seats.join(" · ")} · ${notes.join(" · ")}`;
  td.append(total, sub);
  return td;
}

const REASONS = {
  target: (r) => `a team reached the target of ${r.target} points`,
  floor: (r) => `a team fell to ${r.floor} points or below`,
  hands: (r, v) => v.hand_no > (r.max_hands || 0)
    ? `the scores were tied after the ${r.max_hands}-hand limit; a sudden-death hand decided it`
    : `the ${r.max_hands}-hand limit was reached`,
  boston: () => "a Boston: one team took all 13 tricks",
  forfeit: () => "a forfeit: a player left or ran out of time",
};

function renderEnd() {
  const v = S.view, box = $("end");
  box.hidden = v.phase !== "over";
  if (box.hidden) return;
  const me = v.seat === null ? 0 : v.seat, team = me % 2;
  const h = document.createElement("h3");
  h.textContent = v.winner === null ? "A draw" : v.seat === null ? `${teamNames(v.winner)} won`
    : v.winner === team ? "You won!" : "You lost";
  const why = document.createElement("p");
  why.id = "end-reason";
  const reason = REASONS[v.end_reason];
  why.textContent = `The match is over: ${reason && v.rules ? reason(v.rules, v) : v.end_reason}. `
    + `Final score: ${teamNames(team)} ${v.scores[team]}, ${teamNames(1 - team)} ${v.scores[1 - team]}, `
    + `after ${v.sheet.length} hand(s).`;
  // The buttons follow the result at once: they stay in sight in the dock's fixed height.
  const notes = [why];
  tvNext(notes);
  const parts = [];
  // Playing again is for those seated at a person's table; a spectator, and the players
  // of a ranked or tournament match (a private table with no room code), only go back.
  const matchTable = S.table && S.table.private && !S.table.code;
  const seated = S.table && S.table.table_id && mySeatAtTable() !== null && v.seat !== null
    && !matchTable;
  if (seated) {
    const asked = S.asked && S.asked.game_id === S.game ? S.asked : null;
    if (asked) {
      const p = document.createElement("p");
      p.id = "again-asked";
      p.textContent = `${asked.asked_by} asks to play again at this table, same seats.`;
      notes.unshift(p);
    }
    const again = button(asked ? "Yes, play again" : "Play again", () => playAgain(S.table.table_id));
    again.id = "play-again";
    again.title = "Another game at this table with the same seats; the others are asked";
    parts.push(again, " ");
  }
  if (v.seat === null && S.table && S.table.game_id && S.table.game_id !== S.game) {
    // The table we watched went on to another game: the table frames said so.
    const next = button("Watch the next game", () => {
      send({ type: "unsubscribe", game_id: S.game });
      openGame(S.table.game_id, true);
    });
    next.id = "watch-next";
    parts.push(next, " ");
  }
  const fresh = button(seated ? "New table" : "Back to the lobby", async () => {
    send({ type: "unsubscribe", game_id: S.game });
    if (seated) await leaveAfterGame(S.table.table_id);
    enterLobby();
  });
  fresh.id = "new-table";
  const started = S.started[S.game];
  if (v.seat !== null && ((started && started.origin === "queue") || S.ratingChanges[S.game]
                          && !(started && started.origin === "tournament"))) {
    // A ranked game: back to the lobby and into the queue again, alone.
    const again = button("Queue again", () => {
      send({ type: "unsubscribe", game_id: S.game });
      enterLobby();
      send({ type: "queue_join", partner: null });
    });
    again.id = "queue-again";
    parts.push(again, " ");
  }
  if (seated) fresh.title = "Leave this table (your seat goes to a bot, or is freed, as its rules say) and open or join another";
  if (S.origin) {  // a tournament's game: its bracket is where the player goes next
    const back = Object.assign(document.createElement("a"), {
      id: "to-tournament", className: "button",
      href: `/tournaments#${encodeURIComponent(S.origin.tournament_id)}`,
      textContent: `Back to ${S.origin.name || "the tournament"}` });
    parts.push(back, " ");
  }
  const change = S.ratingChanges[S.game];
  if (change) {
    const p = document.createElement("p");
    p.id = "rating-change";
    p.textContent = `Rating ${change.rating_before} → ${change.rating_after} `
      + `(${signed(change.rating_after - change.rating_before)})`;
    notes.unshift(p);
  }
  const actions = document.createElement("div");
  actions.id = "end-actions";
  actions.append(...parts, fresh);
  box.replaceChildren(h, actions, ...notes);
}

// Ask for (or agree to) another game at the same table: the table page shows who has
// agreed until the game begins; its table frame then brings us into the new game.
async function playAgain(tableId) {
  const oldGame = S.game;
  try {
    const t = await api("POST", `/v1/tables/${tableId}/again`);
    if (S.asked && S.asked.table_id === tableId) S.asked = null;
    $("again-box").hidden = true;
    if (oldGame) send({ type: "unsubscribe", game_id: oldGame });
    S.game = null; S.view = null;
    joinTable(Promise.resolve(t));
  } catch (err) {
    if (err.code === "game_running" || err.code === "not_seated") {
      // Too late: the others went on without us (our seat went to a bot), or we left.
      if (S.asked && S.asked.table_id === tableId) S.asked = null;
      offerAgain();
      status("That table has gone on to its next game without you.");
    } else status(err.message);
  }
}

function addChat(f) {
  const p = document.createElement("div");
  p.className = f.bot ? "bot" : "";
  // A seat's name says what it is (bot, guest); a spectator has only the name it sent.
  const who = f.seat !== null && f.seat !== undefined ? NAME_OF(f.seat) : f.name;
  p.textContent = `${who}: ${f.text}`;
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
// --- leaving a running game: what it costs, said before it is done ---------------------

// What leaving costs under the game's rules: a bot finishing the seat, or the pair's forfeit;
// a ranked game's rating and queue, a tournament's match.
function leaveCost(v) {
  const forfeit = v.rules && v.rules.abandon === "forfeit";
  const origin = S.started[S.game] ? S.started[S.game].origin : S.originKind;
  const out = [forfeit
    ? "Resigning ends the match now: your team forfeits it, and you and your partner lose."
    : "A bot plays your seat to the end of the game and your partner plays on with it. "
      + "You may take the seat back by opening the game again from the lobby."];
  if (origin === "queue") {
    out.push("This is a ranked game: you score it as a loss whatever your partner's result, "
      + "and you must wait a while before you may queue again.");
  } else if (origin === "tournament") {
    out.push(forfeit ? "Your team loses this tournament match."
      : "Your team's tournament match goes on with the bot in your seat.");
  }
  return { forfeit, text: out.join(" ") };
}

function renderQuit() {
  const v = S.view;
  const can = v && v.seat !== null && v.phase !== "over" && !v.bots[v.seat];
  $("quit").hidden = !can;
  $("back").textContent = can ? "Back to the lobby (the game and your clock go on)" : "Back to the lobby";
  if (!can) { $("quit-confirm").hidden = true; return; }
  const cost = leaveCost(v);
  $("quit").textContent = cost.forfeit ? "Resign this game…" : "Leave this game…";
  $("quit-cost").textContent = cost.text;
  $("quit-yes").textContent = cost.forfeit ? "Resign: we lose the match" : "Leave: a bot plays for me";
}
$("quit").onclick = () => { renderQuit(); $("quit-confirm").hidden = false; };
$("quit-no").onclick = () => { $("quit-confirm").hidden = true; };
$("quit-yes").onclick = () => {
  $("quit-confirm").hidden = true;
  S.leaving = { id: command("leave"), forfeit: leaveCost(S.view).forfeit };
};

// A forfeit ends the match: its end shows here as any end does. A bot playing on does not
// need the player: back to the lobby, saying so there until the player moves on.
function left() {
  const forfeit = S.leaving.forfeit;
  S.leaving = null;
  if (forfeit) return;
  send({ type: "unsubscribe", game_id: S.game });
  enterLobby();
  $("lobby-note").hidden = false;
  $("lobby-note").textContent = "You left your game: a bot plays your seat to its end. "
    + "\"Back to your game\" takes the seat back while the game lasts.";
}

// Reporting the game shown: anyone who could see it may ask the fair-play reviewers to
// look at a ranked game (POST /v1/games/{id}/report); the answer shows under the form.
function reportSaid(text) {
  $("report-said").textContent = text;
  $("report-said").hidden = !text;
}
$("report").onclick = () => { $("report-box").hidden = false; reportSaid(""); $("report-reason").focus(); };
$("report-no").onclick = () => { $("report-box").hidden = true; };
$("report-box").onsubmit = async (e) => {
  e.preventDefault();
  const game = S.game;
  $("report-send").disabled = true;
  try {
    await api("POST", `/v1/games/${encodeURIComponent(game)}/report`,
              { reason: $("report-reason").value.trim() });
    $("report-box").hidden = true;
    $("report-reason").value = "";
    reportSaid("Thank you: the fair-play reviewers will look at this game.");
  } catch (err) {
    reportSaid(err.code === "rate_limited"
      ? "You have sent many reports lately: you may send more in an hour."
      : err.message);
  } finally {
    $("report-send").disabled = false;
  }
};

$("back").onclick = () => {
  if (S.game) send({ type: "unsubscribe", game_id: S.game });
  enterLobby();
};
// The page's foot leaves room for the dock, so that nothing above it is hidden for good.
new ResizeObserver(() => {
  document.body.style.paddingBottom = `${$("dock").offsetHeight}px`;
}).observe($("dock"));
$("trick-pause").value = localStorage.getItem("trickPause") || "1000";
$("trick-pause").onchange = () => localStorage.setItem("trickPause", $("trick-pause").value);

setInterval(() => {
  if (S.view && S.view.phase !== "over") renderSeats();
  if (S.offer) tickOffer();
  if (S.statusAt && Date.now() - S.statusAt > 10000) clearStatus();  // a stale error goes
}, 500);

// "#/games/<id>": the game itself, with its clock, after a reload or from a link (a
// tournament's "Play your match", a bracket's match). Seated if GET /v1/me names it among
// this player's games, else watched (a ranked or tournament game a few tricks behind).
async function openGameAt(gameId) {
  let mine = null;
  try {
    mine = (await api("GET", "/v1/me")).games.find((g) => g.game_id === gameId) || null;
  } catch (err) { status(err.message); }
  if (S.game === gameId) return;
  if (S.game) send({ type: "unsubscribe", game_id: S.game });
  if (mine) { resumeGame(mine); return; }
  let table = null;
  try {
    const g = await api("GET", `/v1/games/${encodeURIComponent(gameId)}`);
    table = g.table_id ? await api("GET", `/v1/tables/${g.table_id}`) : null;
  } catch { /* the game's own frames say what there is to see */ }
  watch({ ...(table || { table_id: "", seats: [] }), game_id: gameId });
}

if (S.token && S.me) {  // an address of a player's page or a game opens it, over the lobby
  const wanted = location.hash;
  const game = wanted.match(/^#\/games\/([^/?]+)$/);
  if (game) {
    $("who").textContent = `Signed in as ${S.me.name}`;
    show("game");
    connect();
    openGameAt(decodeURIComponent(game[1]));
  } else {
    enterLobby();
    if (wanted.startsWith("#/players/") || wanted === "#/tv") { history.replaceState(null, "", wanted); route(); }
  }
} else show("signin");

// --- ranked: the queue, the ready check, the leaderboard and player pages ---------------

function seconds(ms) { return Math.max(0, Math.round(ms / 1000)); }

// A time still to wait, as a person says it: "45 s", "2 min 05 s".
function countdown(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

// What keeps this player out of the queue now, as GET /v1/queue says (its notes do not
// carry it: the last answer stands until the next), or "" when they may join.
function blocked(q) {
  const by = q.blocked_by !== undefined ? q.blocked_by : S.blockedBy || "";
  if (by === "registered_only") return "Ranked play is for registered players: register a name to queue.";
  if (by === "more_games_needed") {
    const n = q.games_needed !== undefined ? q.games_needed : S.gamesNeeded;
    return `Finish ${n} more game${n === 1 ? "" : "s"} at any table before you queue for ranked play.`;
  }
  if (by === "ranked_barred") return plainError({ code: "ranked_barred", until: q.until });
  return "";
}

function renderQueue(q) {
  const waiting = q.state === "waiting" || q.state === "inviting" || q.state === "matched";
  if (q.blocked_by !== undefined) { S.blockedBy = q.blocked_by; S.gamesNeeded = q.games_needed; }
  $("queue-join").disabled = !waiting && !!blocked(q);
  $("queue-join").hidden = waiting;
  $("queue-leave").hidden = !waiting;
  S.queue = q;
  let text;
  if (q.state === "inviting") text = `Waiting for your partner to queue with you (${seconds(q.invite_until - Date.now())} s left).`;
  else if (q.state === "waiting") {
    text = `In the queue for ${seconds(Date.now() - q.since)} s`
      + (q.window === null ? ", open to anyone." : `, ratings within ±${q.window}.`)
      + (q.partner ? " With your partner." : "");
  } else if (q.state === "matched") text = "A match was found.";
  else if (blocked(q)) text = blocked(q);
  else {
    const why = { left: "You left the queue.", socket_closed: "Your connection dropped; queue again.",
                  gateway_lost: "The server lost your place; queue again.",
                  invite_expired: "Your partner did not answer.", started: "",
                  declined: "You did not accept the match.",
                  partner_declined: "Your partner did not accept the match.",
                  ranked_barred: "A fair-play review barred you from ranked play.",
                  partner_unavailable: "Your partner may not play ranked now." }[q.reason] || "";
    const cool = q.cooldown_until && q.cooldown_until > Date.now()
      ? `You may queue again in ${countdown(q.cooldown_until - Date.now())}.` : "";
    text = ["Not queued.", why, cool].filter(Boolean).join(" ");
  }
  $("queue-state").textContent = text;
}

function onQueueNote(n) {  // the ready check itself is the offer box's (showOffer)
  if (n.kind === "queue_status" || n.kind === "match_found") refreshQueueStats();
  if (n.kind === "queue_status") {
    renderQueue(n);
    if (n.state !== "matched") $("queue-match").hidden = true;
    if (n.reason === "ranked_barred") refreshRanked();  // GET /v1/queue says until when
  } else if (n.kind === "queue_invite") {
    const box = $("queue-invite");
    box.hidden = false;
    box.replaceChildren(`${n.name} asks you to queue as partners. `,
                        button("Queue together", () => {
                          box.hidden = true; send({ type: "queue_join", partner: n.player_id });
                        }));
  } else if (n.kind === "match_found") {
    if (S.queue) renderQueue({ ...S.queue, state: "matched" });  // the wait is over
    const box = $("queue-match");
    box.hidden = false;
    box.replaceChildren(...n.teams.map((team, i) => {
      const p = document.createElement("div");
      p.textContent = `Team ${i + 1}: ` + team.map((m) => `${m.name} (${m.rating})`).join(" & ");
      return p;
    }));
  } else if (n.kind === "rating_changed") {
    S.ratingChanges[n.game_id] = n;
    if (S.game === n.game_id && S.view && S.view.phase === "over") renderEnd();
    refreshBoard();
  }
}

$("queue-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const name = $("queue-partner").value.trim();
  if (!name) { send({ type: "queue_join", partner: null }); return; }
  const self = "You cannot be your own partner: name another player, or leave it empty to queue alone.";
  if (S.me && name.toLowerCase() === S.me.name.toLowerCase()) { status(self); return; }
  // The server finds a name however it is typed (any case, look-alike letters): the
  // answer may still be this player.
  api("GET", `/v1/players?name=${encodeURIComponent(name)}`)
    .then((p) => (S.me && p.player_id === S.me.player_id ? status(self)
      : send({ type: "queue_join", partner: p.player_id })))
    .catch((err) => status(err.message));
});
$("queue-leave").onclick = () => send({ type: "queue_leave" });

async function refreshRanked() {
  try {
    renderQueue(await api("GET", "/v1/queue"));
  } catch (err) { /* the lobby works without the queue */ }
  await refreshQueueStats();
  refreshBoard();
}

// Who is in the queue, read again whenever this player's place in it changes (a join, a
// match found, a decline): a count read before one's own join would say "0 waiting".
async function refreshQueueStats() {
  try {
    const st = await api("GET", "/v1/queue/stats");
    const ready = st.in_ready_check || 0;
    const queued = st.waiting_solo + st.waiting_pair + ready;
    $("queue-stats").textContent = `${queued} in the queue: ${st.waiting_solo} waiting alone, `
      + `${st.waiting_pair} in pairs${ready ? `, ${ready} answering a match's ready check` : ""}; `
      + `median wait ${seconds(st.median_wait_ms)} s, 90% within ${seconds(st.p90_wait_ms)} s.`;
  } catch (err) { /* the lobby works without the queue */ }
}

async function refreshBoard(around = S.boardAround) {
  S.boardAround = around;
  try {
    const q = around ? `&around=${encodeURIComponent(S.me.player_id)}` : "";
    const board = await api("GET", `/v1/leaderboard?provisional=true&limit=20${q}`);
    $("leaderboard").replaceChildren(...board.entries.map((e) => {
      const tr = document.createElement("tr");
      if (S.me && e.player_id === S.me.player_id) tr.className = "me";
      for (const text of [e.rank, e.name, `${e.rating}${e.provisional ? "?" : ""}`,
                          `${e.wins}-${e.losses}-${e.draws}`]) {
        const td = document.createElement("td"); td.textContent = text; tr.append(td);
      }
      if (e.provisional) tr.cells[2].title = "Provisional: too few rated games yet for a settled rating";
      tr.onclick = () => { location.hash = `#/players/${encodeURIComponent(e.player_id)}`; };
      return tr;
    }));
    // "Around me" for someone the board does not list: say why, not an empty table.
    const absent = around && !board.entries.some((e) => S.me && e.player_id === S.me.player_id);
    $("board-note").hidden = !absent;
    $("board-note").textContent = absent ? "You are not on the leaderboard: it lists players "
      + "once they have played a ranked game, and for two weeks after their last one. "
      + "Join the queue above to play one." : "";
  } catch (err) { /* ratings away: the board waits for the next refresh */ }
}
$("board-top").onclick = () => refreshBoard(false);
$("board-around").onclick = () => refreshBoard(true);

// --- pages with an address: the home page's parts and a player's page -------------------

// "#/players/<id>" is a player's page, "#/games/<id>" a game's screen; "#/play", "#/ranked"
// and "#/leaderboard" are parts of the home page (the lobby), "#/" its top. A game or a
// table keeps the screen until its player leaves it, except for a player's page or
// another game, which show at once.
function route() {
  if (!S.token || !S.me) return;
  const hash = location.hash || "#/";
  const player = hash.match(/^#\/players\/([^/?]+)$/);
  if (player) { showPlayer(decodeURIComponent(player[1])); return; }
  if (hash === "#/tv") { tuneTv(); return; }
  const game = hash.match(/^#\/games\/([^/?]+)$/);
  if (game) { if (S.game !== decodeURIComponent(game[1])) openGameAt(decodeURIComponent(game[1])); return; }
  if ($("lobby").hidden) {
    if (!$("game").hidden && S.game) send({ type: "unsubscribe", game_id: S.game });
    enterLobby();
  }
  const anchor = { "#/play": "play-h", "#/ranked": "ranked-h", "#/leaderboard": "leaderboard-h" }[hash];
  if (anchor) $(anchor).scrollIntoView();
  else window.scrollTo(0, 0);
}
window.addEventListener("hashchange", route);

const RESULTS = { win: "won", loss: "lost", draw: "draw", left: "left" };

function cell(tr, text, className = "") {
  const td = document.createElement("td");
  if (typeof text === "string" || typeof text === "number") td.textContent = text;
  else td.append(text);
  if (className) td.className = className;
  tr.append(td);
  return td;
}

// One finished game on a player's page: when, with and against whom, the score (theirs
// first), the result, the rating change, the tournament and round, and its replay.
function gameRow(g) {
  const tr = document.createElement("tr");
  tr.dataset.game = g.game_id;
  if (g.scores) tr.dataset.scores = g.scores.join(" ");  // by team, as the replay shows them
  const team = g.team === null || g.team === undefined ? 0 : g.team;
  cell(tr, new Date(g.ended_at || g.started_at).toLocaleString([], {
    dateStyle: "medium", timeStyle: "short" }), "date");
  cell(tr, g.partner ? g.partner.name : "");
  cell(tr, (g.opponents || []).map((o) => o.name).join(" & "));
  cell(tr, g.scores ? `${g.scores[team]} – ${g.scores[1 - team]}` : "", "score");
  cell(tr, RESULTS[g.result] || g.result, `result ${g.result}`);
  cell(tr, g.rating ? `${g.rating.before} → ${g.rating.after} (${signed(g.rating.delta)})`
    : g.rated ? "rated" : "unrated", "rating");
  const t = g.tournament;
  cell(tr, t ? `${t.name || "Tournament"}${t.round_name ? `, ${t.round_name}` : t.round_no ? `, round ${t.round_no}` : ""}`
    : { queue: "ranked", table: "table", tournament: "tournament" }[g.origin] || g.origin, "event");
  const a = Object.assign(document.createElement("a"), {
    href: `/replay/${encodeURIComponent(g.game_id)}`, textContent: "Replay" });
  a.className = "replay-link";
  cell(tr, a);
  return tr;
}

async function showPlayer(playerId, before = null) {
  try {
    const q = before ? `&before=${encodeURIComponent(before)}` : "";
    const [page, games] = await Promise.all([
      api("GET", `/v1/players/${encodeURIComponent(playerId)}`),
      api("GET", `/v1/players/${encodeURIComponent(playerId)}/games?limit=20${q}`)]);
    show("profile");
    $("profile").dataset.player = playerId;
    $("profile-name").textContent = page.name + (S.me && playerId === S.me.player_id ? " (you)" : "");
    const r = page.ranked;
    $("profile-record").textContent = r
      ? `Rated: ${r.rating}${r.provisional ? " (provisional)" : ""}, peak ${r.peak}; `
        + `${r.wins} won, ${r.losses} lost, ${r.draws} drawn, ${r.left} left.`
      : "No rated games yet.";
    const body = $("profile-games").tBodies[0];
    if (!before) body.replaceChildren();
    body.append(...games.games.map(gameRow));
    if (!body.children.length) {
      const tr = document.createElement("tr");
      cell(tr, "No finished games yet.").colSpan = 8;
      body.append(tr);
    }
    const more = $("profile-more");
    more.hidden = !games.next;
    more.onclick = () => showPlayer(playerId, games.next);
  } catch (err) { status(err.message); }
}

// Every second: the time in the queue goes up, an invitation's and a cooldown's go down
// (and the cooldown's line once more when it has run out). While a cooldown runs, the next
// tick lands just after its shown second changes, so a late timer never skips a number.
(function tickQueue() {
  const q = S.queue;
  let wait = 1000;
  if (q) {
    const left = q.cooldown_until ? q.cooldown_until - Date.now() : -Infinity;
    if (q.state === "waiting" || q.state === "inviting" || left > -1000) renderQueue(q);
    if (left > 0) wait = (left % 1000) + 20;
  }
  setTimeout(tickQueue, wait);
})();
