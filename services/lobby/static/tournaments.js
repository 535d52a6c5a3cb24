// Tournaments for people: plain script, no build step, /v1/tournaments routes only
// (docs/protocol.md). Signed in as on the tables page (the same session), it lists
// tournaments, shows one (teams, matches by round, standings with their tie-breaks) and
// keeps it current over /v1/ws (watch_tournament), registers, confirms and checks in a
// team, offers Ready when a match of this player's is offered, and gives the organizer
// their forms. The server decides everything; the page shows its answers.
"use strict";

const $ = (id) => document.getElementById(id);
const T = {
  token: localStorage.getItem("token"),
  me: JSON.parse(localStorage.getItem("me") || "null"),
  id: null, view: null, ws: null, offer: null, refresh: null,
};

// A refusal shows in the status line and beside what was pressed (say.js), in the
// project's words.
function status(text) {
  $("status").textContent = text || "";
  sayNear(text);
}

async function api(method, path, body) {
  const r = await fetch(path, {
    method, headers: { "content-type": "application/json",
                       ...(T.token ? { authorization: `Bearer ${T.token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = r.status === 204 ? null : await r.json();
  if (!r.ok) {
    if (r.status === 401 && T.token) signOut();
    throw new Error(data && (data.code || data.message) ? plainError(data)
      : `The server answered ${r.status}: try again.`);
  }
  return data;
}

// Every write goes through here: its error shows in the status line until the next
// write succeeds (a re-read the feed asks for leaves it); success re-reads.
async function act(method, path, body) {
  try {
    const done = await api(method, path, body);
    status("");
    if (T.id) await load(T.id);
    return done;
  } catch (err) { status(err.message); return null; }
}

function show(section) {
  for (const id of ["signin", "list", "detail"]) $(id).hidden = id !== section;
  $("sign-out").hidden = section === "signin";
}

function signOut() {
  localStorage.removeItem("token"); localStorage.removeItem("me");
  T.token = null; T.me = null;
  if (T.ws) T.ws.close();
  $("who").textContent = "";
  show("signin");
}

// Signing in, or registering a new name here (the same session as the tables page's).
function signInForm(form, path, nameId, passwordId) {
  $(form).addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const s = await api("POST", path, { name: $(nameId).value.trim(),
                                          password: $(passwordId).value });
      T.token = s.token; T.me = { player_id: s.player_id, name: s.name };
      localStorage.setItem("token", s.token);
      localStorage.setItem("me", JSON.stringify(T.me));
      status("");
      start();
    } catch (err) { status(err.message); }
  });
}
signInForm("login-form", "/v1/auth/login", "login-name", "login-password");
signInForm("register-account-form", "/v1/auth/register", "new-name", "new-password");
$("sign-out").onclick = signOut;

// --- the list ------------------------------------------------------------------------------

const when = (ms) => new Date(ms).toLocaleString();
// The list's columns after the name, as a phone labels them (it shows no header row).
const LIST_LABELS = ["Format", "Status", "Starts", "Champion"];

async function list() {
  T.id = null; T.view = null;
  show("list");
  const body = $("tournaments").tBodies[0];
  body.replaceChildren();
  try {
    for (const t of (await api("GET", "/v1/tournaments?limit=200")).tournaments) {
      const row = body.insertRow();
      row.dataset.tournament = t.tournament_id;
      const link = document.createElement("a");
      link.href = `#${t.tournament_id}`;
      link.textContent = t.name;
      row.insertCell().append(link);
      const texts = [t.format.replaceAll("_", " "), STATUS[t.status] || t.status,
                     when(t.starts_at), t.champion ? t.champion_name || "a team" : ""];
      const labels = [...LIST_LABELS];
      if (t.status === "running" || t.status === "finished") labels[2] = "Started";
      texts.forEach((text, i) => {
        const cell = row.insertCell();
        cell.textContent = text;
        cell.dataset.label = labels[i];
        if (!text) cell.classList.add("empty");
      });
    }
  } catch (err) { status(err.message); }
}

$("create-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const now = Date.now(), starts = now + Number($("create-starts").value) * 60_000;
  const done = await act("POST", "/v1/tournaments", {
    name: $("create-name").value.trim(), format: { kind: $("create-format").value },
    registration_opens_at: now - 1000, registration_closes_at: starts, starts_at: starts,
    // A check-in longer than the wait opens at once: no team finds it closed.
    check_in_minutes: Math.min(Number($("create-check-in").value), Number($("create-starts").value)),
    // The preset chosen; a player who leaves forfeits for the pair, as by default.
    rules: { preset: $("create-rules").value, abandon: "forfeit" },
    rated: $("create-rated").checked,
    min_teams: Number($("create-min").value), max_teams: Number($("create-max").value) });
  if (done) location.hash = done.tournament_id;
});

// --- one tournament ------------------------------------------------------------------------

function teamName(teamId) {
  const team = T.view && T.view.teams.find((t) => t.team_id === teamId);
  return team ? team.name : teamId;
}

// A player as people know them: the name the lobby gives, "Bot (level)" for a bot team's.
function playerName(playerId) {
  if (playerId.startsWith("bot:")) return `Bot (${playerId.split(":")[1]})`;
  return (T.view && T.view.names && T.view.names[playerId]) || playerId;
}

async function load(id) {
  try {
    T.view = await api("GET", `/v1/tournaments/${encodeURIComponent(id)}`);
  } catch (err) { status(err.message); return; }
  render();
}

function render() {
  const v = T.view, s = v.summary, me = T.me && T.me.player_id;
  show("detail");
  $("detail").dataset.version = v.version;
  $("detail").dataset.status = s.status;
  $("t-name").textContent = s.name;
  $("t-status").textContent = STATUS[s.status] || s.status;
  $("t-format").textContent = s.format.replaceAll("_", " ");
  $("t-organizer").textContent = playerName(s.organizer);
  $("t-starts-label").textContent = s.status === "registering" ? "starts" : "started";
  $("t-starts").textContent = when(s.starts_at);
  $("t-champion").textContent = s.champion ? `Champion: ${teamName(s.champion)}` : "";
  if (s.status === "finished" || s.status === "cancelled") $("banner").hidden = true;
  else if (!$("play").hidden && v.matches.some((m) => m.game_id && m.outcome
           && $("play").href.endsWith(`/${encodeURIComponent(m.game_id)}`))) {
    $("banner").hidden = true;  // the match it led to is over
  }
  const over = s.status === "finished" || s.status === "cancelled";
  // Check-in belongs to registration: once the tournament runs (at its time or started
  // early by the organizer) the window is past.
  $("t-check-in").hidden = !s.check_in_opens_at || s.status !== "registering";
  if (s.check_in_opens_at) {
    $("t-check-in").textContent = `Check-in: from ${when(s.check_in_opens_at)} `
      + `to ${when(s.check_in_closes_at)}.`;
  }

  const mine = v.teams.find((t) => t.players.includes(me) && !t.withdrawn);
  $("register-form").hidden = Boolean(mine) || s.status !== "registering";
  $("my-team").hidden = !mine;
  if (mine) {
    const partner = mine.players.find((p) => p !== me);
    const now = Date.now();
    const checkInOpen = s.check_in_opens_at && s.check_in_opens_at <= now && now < s.check_in_closes_at;
    $("my-team-text").textContent = `${mine.name}, with ${playerName(partner)}: ` + (
      s.status !== "registering" ? standing(v, mine.team_id)
        : !mine.confirmed ? `waiting for ${playerName(partner)} to accept (signed in, they see `
          + "the invitation)"
          : mine.waiting ? "on the waiting list: the tournament is full; your team plays if "
            + "a placed team withdraws or does not check in"
          : mine.checked_in.includes(me) ? "checked in"
          : s.check_in_opens_at && now < s.check_in_opens_at
            ? `confirmed; check in from ${when(s.check_in_opens_at)}` : "confirmed");
    $("confirm").hidden = mine.confirmed || mine.players[1] !== me;
    $("check-in").hidden = !mine.confirmed || mine.checked_in.includes(me)
      || s.status !== "registering" || !checkInOpen;
    $("my-team").dataset.team = mine.team_id;
    // A finished or cancelled tournament has none to leave, nor has a knocked-out team.
    const placed = (v.standings || []).find((x) => x.team_id === mine.team_id);
    $("withdraw").hidden = over || Boolean(placed && placed.eliminated);
  }
  $("organize").hidden = s.organizer !== me || !["registering", "running"].includes(s.status);
  $("edit-form").hidden = s.organizer !== me || s.status !== "registering";
  $("start-now").hidden = s.status !== "registering";
  $("start-confirm").hidden = true;
  $("bot-team").hidden = s.status !== "registering" || Boolean(v.settings.rated);
  if (!$("edit-form").hidden && document.activeElement.closest("#edit-form") === null) {
    $("edit-name").value = v.settings.name;
    $("edit-max").value = v.settings.max_teams;
  }
  $("override-match").replaceChildren(...v.matches.map((m) => {
    const o = document.createElement("option");
    o.value = m.match_id;
    o.textContent = `${m.match_id}: ${teamName(m.home)} v ${teamName(m.away)}`;
    return o;
  }));

  liveMatch(v, mine);
  rows("teams", v.teams.map((t) => [t.team_id, [
    t.seed ?? "", t.name, t.players.map(playerName).join(" & "),
    t.withdrawn ? `out (${t.withdrawn.replaceAll("_", " ")})`
      : s.status === "running" || s.status === "finished" ? standing(v, t.team_id)
        : !t.confirmed ? "invited" : t.waiting ? "waiting list"
          : t.checked_in.length === 2 ? "checked in"
            : t.checked_in.length ? "1 of 2 checked in" : "confirmed"]]),
  ["Seed", "Team", "Players", "State"]);
  if (s.organizer === me && !over) addRemoveButtons(v);

  const rounds = new Map();
  for (const m of v.matches) {
    if (!rounds.has(m.round_no)) rounds.set(m.round_no, []);
    rounds.get(m.round_no).push(m);
  }
  $("bracket").replaceChildren(...[...rounds.keys()].sort((a, b) => a - b).map((n) => {
    const col = document.createElement("div");
    col.className = "round";
    const h = document.createElement("h3");
    const named = (v.rounds || []).find((r) => r.round_no === n);
    h.textContent = rounds.get(n)[0].round_name || (named && named.name) || `Round ${n}`;
    col.append(h);
    for (const m of rounds.get(n)) {
      const box = document.createElement("div");
      box.className = "match";
      box.dataset.match = m.match_id;
      box.dataset.outcome = m.outcome || "";
      if (mine && [m.home, m.away].includes(mine.team_id)) box.classList.add("ours");
      for (const side of ["home", "away"]) {
        const line = document.createElement("div");
        line.textContent = teamName(m[side]) + (m.outcome ? `  ${m.scores[side === "home" ? 0 : 1]}` : "");
        if (m.outcome === side) line.className = "won";
        box.append(line);
      }
      if (m.reason !== "played") box.title = m.reason.replace("_", " ");
      const link = gameLink(m, mine);
      if (link) box.append(link);
      if (m.deals && m.deals.length) {  // duplicate deals: each deal's score, after the round
        const deals = document.createElement("div");
        deals.className = "deals";
        deals.textContent = m.deals.map(([h, a], i) => `${i + 1}: ${h}/${a}`).join("  ");
        box.append(deals);
      }
      col.append(box);
    }
    return col;
  }));

  // Only the columns that decide this format, in the server's order.
  const columns = v.standings_columns && v.standings_columns.length ? v.standings_columns
    : ["match_points", "buchholz", "head_to_head", "differential", "bags", "points"];
  const labels = ["#", "Team", ...columns.map((c) => COLUMNS[c] || c.replaceAll("_", " "))];
  $("standings").tHead.rows[0].replaceChildren(...labels.map((text, i) => {
    const th = document.createElement("th");
    th.textContent = text;
    if (i > 1) th.dataset.column = columns[i - 2];
    return th;
  }));
  rows("standings", v.standings.map((r) => [r.team_id, [
    r.rank, teamName(r.team_id), ...columns.map((c) => standingCell(r, c))]]), labels);
  $("standings-box").hidden = !v.standings.length;
  $("no-bracket").hidden = v.matches.length > 0 || s.status !== "registering";
}

// Where the team stands once play began: champions, out (and where), or its rank.
function standing(v, teamId) {
  if (v.summary.champion === teamId) return "champions!";
  const r = v.standings.find((x) => x.team_id === teamId);
  if (!r) return v.summary.status;
  if (r.eliminated) return `out in the ${r.reached_round || `round ${r.reached}`}`;
  if (r.eliminated === false) return `in the ${r.reached_round || `round ${r.reached}`}`;
  return `ranked ${r.rank} of ${v.standings.length}`;
}

// A match's game from the bracket: its own players play it (or replay it once over); others
// watch it a few tricks behind, or see its final score sheet. None before the game began.
function gameLink(m, mine) {
  if (!m.game_id) return null;
  const ours = Boolean(mine) && [m.home, m.away].includes(mine.team_id);
  const a = document.createElement("a");
  a.className = "game-link";
  a.dataset.game = m.game_id;
  const game = `/#/games/${encodeURIComponent(m.game_id)}`;
  [a.href, a.textContent] = !m.outcome ? [game, ours ? "Play your match" : "Watch"]
    : ours ? [`/replay/${encodeURIComponent(m.game_id)}`, "Replay"] : [game, "Score sheet"];
  if (!m.outcome && !ours) a.title = "A few tricks behind the play, so that no one watching can help a player";
  return a;
}

// The player's own match being played: the banner leads to it (after a reload too).
function liveMatch(v, mine) {
  const m = mine && v.summary.status === "running" && v.matches.find(
    (x) => x.game_id && !x.outcome && [x.home, x.away].includes(mine.team_id));
  if (!$("banner").hidden && !$("ready").hidden && T.offer) {  // an offer showing
    $("banner-text").textContent = offerText(T.offer);  // named now the view has the match
    return;
  }
  if (!m) return;
  playable(m.game_id, `${matchOf(m.match_id)} has begun.`);
}

function playable(gameId, text) {
  $("banner").hidden = false;
  $("banner-text").textContent = text;
  $("ready").hidden = true;
  $("accept-invite").hidden = true;
  $("play").hidden = false;
  $("play").href = `/#/games/${encodeURIComponent(gameId)}`;
}

const STATUS = { registering: "Registration open", running: "Being played",
                 finished: "Finished", cancelled: "Cancelled" };

const COLUMNS = { match_points: "Points", buchholz: "Buchholz", head_to_head: "Head to head",
                  differential: "Differential", bags: "Bags", points: "Scored",
                  duplicate: "Duplicate", seed: "Seed", reached: "Reached",
                  reached_round: "Reached", eliminated: "Still in" };

function standingCell(r, column) {
  const value = r[column];
  if (column === "duplicate") {
    return value ? `${value.matchpoints}/${value.top} (${value.percent}%)` : "";
  }
  if (column === "reached") return r.reached_round || (value ?? "");
  if (column === "eliminated") return value ? "no" : value === false ? "yes" : "";
  return value ?? "";
}

// A table's body anew: one row per [team id, cell texts]; ``labels`` name each cell
// where a phone shows no header row.
function rows(tableId, data, labels = []) {
  const body = $(tableId).tBodies[0];
  body.replaceChildren();
  for (const [team, cells] of data) {
    const row = body.insertRow();
    row.dataset.team = team;
    cells.forEach((text, i) => {
      const cell = row.insertCell();
      cell.textContent = text;
      if (labels[i] && i !== 1 && labels[i] !== "#") cell.dataset.label = labels[i];
    });
  }
}

const here = (path) => `/v1/tournaments/${encodeURIComponent(T.id)}${path}`;
$("back").onclick = () => { location.hash = ""; };
$("register-form").addEventListener("submit", (e) => {
  e.preventDefault();
  act("POST", here("/teams"), { name: $("team-name").value.trim(),
                                 partner_name: $("partner").value.trim() });
});
$("confirm").onclick = () => act("POST", here(`/teams/${$("my-team").dataset.team}/confirm`));
$("check-in").onclick = () => act("POST", here("/check-in"));
$("withdraw").onclick = () => act("DELETE", here(`/teams/${$("my-team").dataset.team}`));
$("override-go").onclick = () => act(
  "POST", here(`/matches/${$("override-match").value}/override`),
  { outcome: $("override-outcome").value, why: $("override-why").value.trim() || "organizer" });
$("cancel").onclick = () => act("POST", here("/cancel"));
// Starting now drops every team not checked in: the organizer is told which, and confirms.
$("start-now").onclick = () => {
  const v = T.view, s = v.summary;
  const dropped = s.check_in_opens_at ? v.teams.filter((t) => !t.withdrawn
    && (!t.confirmed || t.checked_in.length < 2)) : v.teams.filter((t) => !t.withdrawn && !t.confirmed);
  if (!dropped.length) { act("POST", here("/start")); return; }
  $("start-confirm-text").textContent = `Starting now leaves out ${dropped.length} team(s) not `
    + `${s.check_in_opens_at ? "checked in by both players" : "confirmed"}: `
    + `${dropped.map((t) => t.name).join(", ")}.`;
  $("start-confirm").hidden = false;
};
$("start-confirm-yes").onclick = () => act("POST", here("/start"));
$("start-confirm-no").onclick = () => { $("start-confirm").hidden = true; };

// The organizer removes a team (it is disqualified: out, its matches forfeited), after a
// second click on the same button that names the team.
function addRemoveButtons(v) {
  for (const row of $("teams").tBodies[0].rows) {
    const team = v.teams.find((t) => t.team_id === row.dataset.team);
    if (!team || team.withdrawn) continue;
    const b = document.createElement("button");
    b.type = "button"; b.className = "remove-team"; b.textContent = "Remove";
    b.onclick = () => {
      if (!b.dataset.armed) { b.dataset.armed = "1"; b.textContent = `Remove ${team.name}? Yes`; return; }
      act("POST", here(`/teams/${encodeURIComponent(team.team_id)}/disqualify`),
          { why: "removed by the organizer" });
    };
    row.insertCell().append(b);
  }
}
$("add-bots").onclick = () => act("POST", here("/bots"), { name: $("bot-name").value.trim(),
                                                          level: $("bot-level").value });
// The whole settings go back with the organizer's changes: the rules as they are stored
// (every option named) resolve to themselves.
$("edit-form").addEventListener("submit", (e) => {
  e.preventDefault();
  act("PATCH", here(""), { ...T.view.settings, name: $("edit-name").value.trim(),
                            max_teams: Number($("edit-max").value) });
});

// --- live: the followed tournament, and this player's match offers -------------------------

function connect() {
  if (T.ws) return;
  const ws = new WebSocket(`${location.origin.replace(/^http/, "ws")}/v1/ws?token=${T.token}`);
  T.ws = ws;
  ws.onopen = () => { if (T.id) watch(T.id); };
  ws.onclose = () => { T.ws = null; if (T.token) setTimeout(connect, 1000); };
  ws.onmessage = (msg) => {
    const f = JSON.parse(msg.data);
    if (f.type === "tournament" && f.tournament_id === T.id && !f.view
        && f.version > (T.view ? T.view.version : 0)) {
      clearTimeout(T.refresh);  // a burst of events makes one read
      T.refresh = setTimeout(() => load(T.id), 100);
    } else if (f.type === "note") {
      note(f.note);
    } else if (f.type === "error" && f.code !== "rate_limited") {
      status(plainError(f));
    }
  };
}

function watch(id, on = true) {
  if (T.ws && T.ws.readyState === WebSocket.OPEN) {
    T.ws.send(JSON.stringify({ type: "watch_tournament", tournament_id: id, on }));
  }
}

function note(n) {
  if (n.kind === "tournament_invite") {  // a player named this one as partner
    $("banner").hidden = false;
    $("banner").dataset.invite = n.team_id;
    $("banner-text").textContent = `${n.name} invites you to play ${n.tournament} as team `
      + `${n.team}.`;
    $("ready").hidden = true;
    $("play").hidden = true;
    const accept = $("accept-invite");
    accept.hidden = false;
    accept.onclick = async () => {
      try {
        await api("POST", `/v1/tournaments/${encodeURIComponent(n.tournament_id)}`
          + `/teams/${encodeURIComponent(n.team_id)}/confirm`);
        accept.hidden = true;
        $("banner-text").textContent = `You play ${n.tournament} with ${n.name}.`;
        location.hash = n.tournament_id;
        if (T.id === n.tournament_id) await load(T.id);
      } catch (err) { status(err.message); }
    };
  } else if (n.kind === "match_offered" && n.origin === "tournament") {
    $("accept-invite").hidden = true;
    T.offer = n;
    $("banner").hidden = false;
    $("banner").dataset.match = n.match_id;
    $("banner-text").textContent = offerText(n);
    $("ready").hidden = false;
    $("play").hidden = true;
  } else if (n.kind === "match_started" && n.origin === "tournament") {
    playable(n.game_id, `${matchOf(n.match_id)} has begun.`);
  }
}

function offerText(n) {
  return `${matchOf(n.match_id)} is ready: press Ready before `
    + `${new Date(n.expires_at).toLocaleTimeString()}.`;
}

// "Your Semi-finals match against Team 1", from the view: the lobby's id of a match
// ("t<tournament>-<match>", in notes) names the bracket's match.
function matchOf(matchId) {
  const id = matchId.replace(/^t[0-9a-f]{32}-/, "");  // the lobby's id of the match, or the bracket's
  const m = T.view && T.view.matches.find((x) => x.match_id === id);
  const mine = m && T.view.teams.find((t) => t.players.includes(T.me.player_id));
  if (!m || !mine) return "Your match";
  const other = teamName(m.home === mine.team_id ? m.away : m.home);
  return `Your ${m.round_name ? `${m.round_name} ` : ""}match against ${other}`;
}

$("ready").onclick = async () => {
  if (!T.offer) return;
  try {
    await api("POST", `/v1/matches/${encodeURIComponent(T.offer.match_id)}/ready`);
    status("");
    $("ready").hidden = true;
    if ($("play").hidden) $("banner-text").textContent = "Ready: waiting for the other players.";
  } catch (err) { status(err.message); }
};

async function route() {
  const id = decodeURIComponent(location.hash.slice(1));
  if (T.id && T.id !== id) watch(T.id, false);
  if (!id) { await list(); return; }
  T.id = id;
  watch(id);
  await load(id);
}

function start() {
  $("who").textContent = T.me ? `Signed in as ${T.me.name}` : "";
  connect();
  route();
  pendingOffer();
}

// A match offered before this page opened (while its player was at a game's end, say):
// GET /v1/me still holds it, so Ready shows here too.
async function pendingOffer() {
  try {
    const me = await api("GET", "/v1/me");
    const o = (me.offers || []).find((x) => x.origin === "tournament");
    if (o && !T.offer) note({ ...o, kind: "match_offered" });
    // Organizing is for organizer and operator accounts: others see why, not a form.
    const organizes = me.role === "organizer" || me.role === "operator";
    $("create-form").hidden = !organizes;
    $("create-note").hidden = organizes;
  } catch (err) { status(err.message); }
}

window.addEventListener("hashchange", route);
if (T.token) start(); else show("signin");
