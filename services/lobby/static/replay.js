// The replay viewer, operators' and players': plain script, no build step; an operator's
// through /v1/admin (docs/operators.md), a player's through /v1/games/{id}/replay. It fetches the log once, to list the events and to know where
// tricks and hands begin; every state it draws is the server's, which is engine.views
// output, never a fold of its own, so what it shows is the engine's truth.
"use strict";

const $ = (id) => document.getElementById(id);
// At /replay/<game> a player replays a finished game they sat in, signed in as the web
// client is (its session's token), through the players' routes; at /admin/replay/ an
// operator replays or searches any game.
const PLAYER = location.pathname.startsWith("/replay/");
const BASE = PLAYER ? "/replay/" : "/admin/replay/";
const KEY = "spades.operator";
const GAME = location.pathname.startsWith(BASE)
  ? decodeURIComponent(location.pathname.slice(BASE.length)) : "";
const ROUTES = PLAYER
  ? { events: (g) => `/v1/games/${g}/replay`, state: (g) => `/v1/games/${g}/replay/state` }
  : { events: (g) => `/v1/admin/games/${g}/events`, state: (g) => `/v1/admin/games/${g}/state` };
const R = { token: PLAYER ? localStorage.getItem("token") : localStorage.getItem(KEY), log: null, at: 0, want: 0, eyes: "", stops: [],
            states: new Map() };

function status(text) { $("status").textContent = text || ""; }

async function api(path, options = {}) {
  const r = await fetch(path, { ...options, headers: {
    "content-type": "application/json",
    ...(R.token ? { authorization: `Bearer ${R.token}` } : {}) } });
  const data = await r.json();
  if (!r.ok) {
    if (r.status === 401 || r.status === 403) signIn(data.message);
    throw new Error(data.message || `HTTP ${r.status}`);
  }
  return data;
}

function signIn(why) {
  if (PLAYER) {  // a player signs in on the web client's page, then comes back
    $("viewer").hidden = true;
    status(why || "sign in on the home page first, then open the replay from your games");
    return;
  }
  localStorage.removeItem(KEY);
  R.token = null;
  $("viewer").hidden = true;
  $("search").hidden = true;
  $("signin").hidden = false;
  status(why || "operators only: sign in");
}

$("login").addEventListener("submit", async (e) => {
  e.preventDefault();
  try {
    const s = await api("/v1/auth/login", { method: "POST", body: JSON.stringify({
      name: $("login-name").value, password: $("login-password").value }) });
    if (s.role !== "operator") { status("this account is not an operator"); return; }
    R.token = s.token;
    localStorage.setItem(KEY, s.token);
    await start();
  } catch (err) { status(err.message); }
});

// The seat's name as the table knew it ("Bot 2 (basic)" for a bot), from the log's names.
function nameOf(seat) {
  const n = R.log && R.log.names && R.log.names[seat];
  return n ? `${n} (seat ${seat})` : `seat ${seat}`;
}

// Cards are drawn by /cards.js (cardEl, cardLabel), as at the table.

function summary(logged) {
  const e = logged.event;
  const bits = [e.type];
  if (e.seat !== undefined && e.seat !== null) bits.push(nameOf(e.seat));
  if (e.type === "BidPlaced") {
    bits.push(e.bid === 0 ? (e.blind ? "blind nil" : "nil") : `bid ${e.bid}`);
    if (e.auto) bits.push("(clock)");
  }
  if (e.type === "CardPlayed") bits.push(cardLabel(e.card) + (e.auto ? " (clock)" : ""));
  if (e.type === "TrickWon") bits.push(`trick ${e.trick_no} taken`);
  if (e.type === "HandDealt") bits.push(`hand ${e.hand_no}, ${nameOf(e.dealer)} deals`);
  if (e.type === "GameEnded") bits.push(`winner ${e.winner}, ${e.reason}`);
  return bits.join(" · ");
}

// --- where to go ---------------------------------------------------------------------------

const total = () => R.log.events.length;
const typeAt = (n) => (n >= 1 && n <= total() ? R.log.events[n - 1].event.type : null);

function after(n, type) {
  for (let k = n + 1; k <= total(); k++) if (typeAt(k) === type) return k;
  return total();
}

function before(n, type) {
  for (let k = n - 1; k >= 1; k--) if (typeAt(k) === type) return k;
  return 0;
}

function stateAt(n) {
  const key = `${R.eyes}:${n}`;
  if (!R.states.has(key)) {
    const seat = R.eyes === "" ? "" : `&seat=${R.eyes}`;
    const p = api(`${ROUTES.state(encodeURIComponent(GAME))}?at=${n}${seat}`);
    p.catch(() => R.states.delete(key));
    R.states.set(key, p);
  }
  return R.states.get(key);
}

async function go(n) {
  n = Math.max(0, Math.min(total(), n));
  R.want = n;
  const eyes = R.eyes;
  $("viewer").dataset.loading = "1";
  let got;
  try { got = await stateAt(n); } catch (err) { status(err.message); return; }
  if (R.want !== n || R.eyes !== eyes) return;  // a later step overtook this one
  R.at = n;
  render(got);
  delete $("viewer").dataset.loading;
  if (n < total()) stateAt(n + 1).catch(() => {});  // the usual next step, fetched ahead
}

// --- drawing -------------------------------------------------------------------------------

// The operator's state (every hand), or one seat's view: only its own hand, and the bids
// it could see (a bid made but hidden from it is -2, one not made yet -1).
function render(s) {
  const op = s.state, t = op ? op.table : s.view;
  const hands = op ? op.hands : [0, 1, 2, 3].map((q) => (q === s.seat ? t.hand || [] : null));
  const bids = op ? op.bids : t.bids.map((b, q) => (b === null ? (t.has_bid[q] ? -2 : -1) : b));
  for (let seat = 0; seat < 4; seat++) {
    const box = $(`seat-${seat}`);
    box.className = "seat" + (t.waiting.includes(seat) ? " turn" : "");
    box.replaceChildren();
    const h = document.createElement("h3");
    h.textContent = nameOf(seat);
    const bid = document.createElement("div");
    bid.id = `bid-${seat}`;
    bid.className = "bid";
    bid.dataset.bid = bids[seat];
    bid.textContent = bids[seat] === -2 ? "bid (hidden)" : bids[seat] < 0 ? "no bid" :
      `bid ${bids[seat]}${t.blind[seat] ? " (blind)" : ""}`;
    const tricks = document.createElement("div");
    tricks.id = `tricks-${seat}`;
    tricks.className = "tricks";
    tricks.dataset.tricks = t.tricks[seat];
    tricks.textContent = `tricks ${t.tricks[seat]}`;
    const hand = document.createElement("div");
    hand.id = `hand-${seat}`;
    hand.className = "hand";
    if (hands[seat] === null) {
      hand.dataset.count = t.cards_left[seat];
      hand.textContent = `${t.cards_left[seat]} cards, face down`;
    } else {
      for (const c of hands[seat]) hand.append(cardEl(c));
    }
    box.append(h, bid, tricks, hand);
  }
  const trick = $("trick");
  trick.replaceChildren();
  // Just after a trick is won the table is cleared: the player's replay shows that trick,
  // its winner marked, as the table did.
  const won = PLAYER && !t.trick.length && typeAt(s.at) === "TrickWon" ? R.log.events[s.at - 1].event : null;
  const shown = won ? won.cards.map((card, seat) => ({ seat, card })) : t.trick;
  for (const p of shown) {
    const el = document.createElement("div");
    el.className = "played" + (won && won.seat === p.seat ? " winner" : "");
    el.dataset.seat = p.seat;
    el.append(cardEl(p.card), nameOf(p.seat));
    trick.append(el);
  }
  $("trick-caption").textContent = won ? `Trick ${won.trick_no}: ${nameOf(won.seat)} takes it` : "";
  $("last-trick").replaceChildren(...(t.last_trick.length
    ? ["last trick: ", ...t.last_trick.map((c) => cardEl(c))] : []));
  $("headline").innerHTML = "";
  $("headline").append(
    `Hand ${t.hand_no} · ${t.phase} · `,
    Object.assign(document.createElement("span"), { id: "score-0", textContent: t.scores[0] }),
    " to ",
    Object.assign(document.createElement("span"), { id: "score-1", textContent: t.scores[1] }),
    ` · bags ${t.bags[0]}/${t.bags[1]}` +
      (t.phase === "over" ? ` · winner: ${t.winner === null ? "draw" : "team " + t.winner}` : ""));
  const body = $("sheet").tBodies[0];
  body.replaceChildren();
  for (const row of t.sheet) {
    const tr = document.createElement("tr");
    for (const text of [row.hand_no, row.tricks.join("/"),
                        `${row.teams[0].delta >= 0 ? "+" : ""}${row.teams[0].delta} = ${row.teams[0].score_after}`,
                        row.teams[0].bags_after,
                        `${row.teams[1].delta >= 0 ? "+" : ""}${row.teams[1].delta} = ${row.teams[1].score_after}`,
                        row.teams[1].bags_after]) {
      tr.append(Object.assign(document.createElement("td"), { textContent: text }));
    }
    body.append(tr);
  }
  $("position").textContent = PLAYER ? where(t) : `event ${s.at} of ${s.version}`;
  if (PLAYER) $("slider").value = String(Math.max(0, R.stops.findLastIndex((k) => k <= s.at)));
  $("jump").value = s.at;
  for (const li of $("events").querySelectorAll("li.current")) li.classList.remove("current");
  const li = $("events").children[s.at - 1];
  if (li) { li.classList.add("current"); li.scrollIntoView({ block: "nearest" }); }
  $("event-no").textContent = s.at ? String(s.at) : "(none: before the first)";
  $("event-json").textContent = s.event ? JSON.stringify(s.event, null, 2)
    : s.at && s.seat !== null ? "(not sent to this seat)" : "";
  $("viewer").dataset.at = s.at;
  $("viewer").dataset.eyes = s.seat === null ? "" : String(s.seat);
}

// --- a player's replay: the table trick by trick, on a slider --------------------------------

// The moments a player steps through: the deal, the bids once all are in, each trick as it
// is won, the hand's score, the end.
function stopsOf() {
  const out = [0];
  for (let k = 1; k <= total(); k++) {
    const type = typeAt(k), next = typeAt(k + 1);
    if (type === "HandDealt" || type === "TrickWon" || type === "HandScored" || type === "GameEnded"
        || (type === "BidPlaced" && next !== "BidPlaced")) out.push(k);
  }
  return [...new Set(out)];
}

// Where the slider stands, in a player's words.
function where(t) {
  if (t.phase === "over") return "The end";
  const played = t.tricks.reduce((a, b) => a + b, 0);
  return `Hand ${t.hand_no} · ` + (t.phase === "bidding" ? "bidding" : `${played} of 13 tricks`);
}

function playerView() {
  document.body.classList.add("player");
  R.stops = stopsOf();
  $("slider").max = String(R.stops.length - 1);
  $("slider").addEventListener("input", () => go(R.stops[Number($("slider").value)]));
}

// --- start ---------------------------------------------------------------------------------

// --- search: find a game without knowing its id -------------------------------------------

async function search() {
  const q = new URLSearchParams({ limit: "50" });
  if ($("search-player").value.trim()) q.set("player", $("search-player").value.trim());
  if ($("search-outcome").value) q.set("outcome", $("search-outcome").value);
  if ($("search-after").value) q.set("started_after", String(Date.parse($("search-after").value)));
  let found;
  try { found = await api(`/v1/admin/games?${q}`); } catch (err) { status(err.message); return; }
  status(found.games.length ? "" : "no game matches");
  $("found").tBodies[0].replaceChildren(...found.games.map((g) => {
    const tr = document.createElement("tr");
    const names = g.players.map((p, seat) => (p.startsWith("bot:")
      ? `${g.names[seat] || `Bot ${seat + 1}`} (${p.slice(4)})` : g.names[seat] || p.slice(0, 8)));
    const outcome = g.ended_at_ms === null ? "playing"
      : `${g.winner === null ? "draw" : `team ${g.winner} won`} (${g.reason}, ${g.hands_played} hands)`;
    for (const text of [g.started_at_ms ? new Date(g.started_at_ms).toLocaleString() : "",
                        names.join(", "), outcome, g.scores ? g.scores.join(" – ") : ""]) {
      tr.append(Object.assign(document.createElement("td"), { textContent: text }));
    }
    const a = Object.assign(document.createElement("a"), {
      href: `/admin/replay/${encodeURIComponent(g.game_id)}`, textContent: "replay" });
    a.className = "open-game"; a.dataset.game = g.game_id;
    const td = document.createElement("td"); td.append(a); tr.append(td);
    return tr;
  }));
}

$("search-form").addEventListener("submit", (e) => { e.preventDefault(); search(); });

async function start() {
  $("game-id").textContent = GAME;
  if (PLAYER) {  // back to the player's own page instead of the operators' search
    const me = JSON.parse(localStorage.getItem("me") || "null");
    Object.assign($("to-search"), { textContent: "your games",
      href: me ? `/#/players/${encodeURIComponent(me.player_id)}` : "/" });
    $("eyes").options[0].textContent = "every hand";
  }
  if (!R.token) { signIn(); return; }
  if (!GAME) {
    $("signin").hidden = true;
    $("search").hidden = false;
    await search();
    return;
  }
  try {
    R.log = await api(ROUTES.events(encodeURIComponent(GAME)));
  } catch (err) { status(err.message); return; }
  $("signin").hidden = true;
  $("viewer").hidden = false;
  status("");
  for (let seat = 0; seat < 4; seat++) $(`eyes-${seat}`).textContent = nameOf(seat);
  if (PLAYER) {  // a person knows a game by who played it and when, not by its id
    const first = R.log.events[0];
    const when = first ? new Date(first.occurred_at_ms).toLocaleString() : "";
    const who = (seat) => (R.log.names && R.log.names[seat]) || `seat ${seat}`;
    $("game-id").textContent = [`${who(0)} & ${who(2)} v ${who(1)} & ${who(3)}`,
                                when].filter(Boolean).join(" · ");
    $("game-id").title = GAME;
  }
  $("team-0").textContent = `Team 0: ${nameOf(0)} & ${nameOf(2)}`;
  $("team-1").textContent = `Team 1: ${nameOf(1)} & ${nameOf(3)}`;
  const list = $("events");
  list.replaceChildren();
  R.log.events.forEach((logged, i) => {
    const li = document.createElement("li");
    li.textContent = summary(logged);
    li.dataset.at = i + 1;
    li.addEventListener("click", () => go(i + 1));
    list.append(li);
  });
  if (PLAYER) { tournamentOf(GAME); playerView(); }
  if (!PLAYER) api(`/v1/admin/games/${encodeURIComponent(GAME)}/verification`).then((v) => {
    $("verdict").textContent = v.verified ? "✔ verified" :
      `✘ diverges at event ${v.divergence.index + 1}: ${v.divergence.reason}`;
  }).catch(() => {});
  const wanted = Number(new URLSearchParams(location.search).get("at") || 0);
  await go(wanted);
}

// A tournament's game says which tournament, round and teams (GET /v1/games/{id}), and
// leads back to the tournament's page; the teams' names head the score sheet (short
// enough for a phone).
async function tournamentOf(gameId) {
  let t;
  try { t = (await api(`/v1/games/${encodeURIComponent(gameId)}`)).tournament; } catch { return; }
  if (!t) return;
  Object.assign($("to-tournament"), { hidden: false,
    href: `/tournaments#${encodeURIComponent(t.tournament_id)}`,
    textContent: [t.name || "the tournament", t.round_name].filter(Boolean).join(" · ") });
  if (t.home && t.away) {  // the players' names are on the board; the seats tell them apart
    $("team-0").textContent = `${t.home} (seats 0 & 2)`;
    $("team-1").textContent = `${t.away} (seats 1 & 3)`;
  }
}

$("first").onclick = () => go(0);
$("last").onclick = () => go(total());
$("prev").onclick = () => go(R.at - 1);
$("next").onclick = () => go(R.at + 1);
$("prev-trick").onclick = () => go(before(R.at, "TrickWon"));
$("next-trick").onclick = () => go(after(R.at, "TrickWon"));
$("prev-hand").onclick = () => go(before(R.at, "HandDealt"));
$("next-hand").onclick = () => go(after(R.at, "HandDealt"));
$("eyes").addEventListener("change", () => { R.eyes = $("eyes").value; go(R.at); });
$("jump-form").addEventListener("submit", (e) => { e.preventDefault(); go(Number($("jump").value)); });
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT") return;
  if (e.key === "ArrowRight") go(R.at + 1);
  if (e.key === "ArrowLeft") go(R.at - 1);
});

start();
