// What the pages say when something is refused, shared by the tables page (app.js) and
// the tournaments page (tournaments.js): a refusal in plain words by its code, and the
// same words beside what the person just pressed. Plain script, loaded before each page's.
"use strict";

// What a refusal means, in plain words, by its code (docs/protocol.md lists them all). A
// code not here shows the server's own message, as a sentence; a code never shows.
const PLAIN = {
  not_your_turn: "It is not your turn yet.",
  must_follow_suit: "You have a card of the suit that was led: you must play one.",
  spades_not_broken: "Spades are not broken yet: lead another suit.",
  card_not_in_hand: "That card is no longer in your hand.",
  already_bid: "You have already bid this hand.",
  wrong_phase: "That move does not fit this moment of the game.",
  cards_not_seen: "Look at your cards first (or bid blind nil).",
  blind_nil_not_offered: "Blind nil is not offered to you now: your team must trail by enough.",
  wrong_pass_count: "Choose exactly the number of cards the rules ask you to pass.",
  seat_is_bot: "A bot is playing your seat since you left; open the game again to take it back.",
  game_over: "The game is over.",
  rate_limited: "Too many actions at once: wait a moment and try again.",
  chat_rate_limited: "You are chatting too fast: wait a moment.",
  chat_too_long: "That message is too long.",
  busy: "The game is busy: try again in a moment.",
  conflict: "The game moved on meanwhile: try again.",
  not_owner: "The game is moving to another server: try again in a moment.",
  game_unavailable: "The game server did not answer: try again in a moment.",
  unavailable: "The server is having trouble: try again in a moment.",
  ratings_unavailable: "Ratings are not available right now: try again in a moment.",
  internal: "Something went wrong on our side; please try again.",
  internal_error: "Something went wrong on our side; please try again.",
  token_expired: "Your session ended: sign in again.",
  bad_token: "Your session is no longer valid: sign in again.",
  unauthenticated: "Please sign in first.",
  already_queued: "You are in the queue already.",
  not_queued: "You are not in the queue.",
  in_game: "You are playing a game already: finish it, or leave it from its page, before you start another.",
  partner_unavailable: "That player cannot queue with you now (they may be playing, queued, or a guest).",
  partner_is_guest: "Your partner must be a registered player.",
  queue_cooldown: (f) => f.until
    ? `You left or missed a ranked match lately: you may queue again in ${countdown(f.until - Date.now())}.`
    : "You left or missed a ranked match lately: wait a little before you queue again.",
  ranked_barred: (f) => f.until
    ? `A fair-play review barred you from ranked play until ${new Date(f.until).toLocaleDateString()}.`
    : "A fair-play review barred you from ranked play for now.",
  game_not_rated: "Fair play reviews ranked games only: this game was not rated.",
  too_many_sockets: "You have this game open in too many windows: close one.",
  too_many_games: "You follow too many games at once: close one.",
  not_in_game: "You are not in that game.",
  not_your_seat: "That is not your seat.",
  table_full: "Every seat at that table is taken.",
  seat_taken: "That seat is taken.",
  not_host: "Only the table's host may do that.",
  name_too_short: "A name needs at least two letters or digits: one letter is an initial, "
    + "and other players could not tell you apart.",
  // Tournaments, and signing up.
  registration_closed: "Registration is not open now: it opens and closes at the times the organizer set.",
  already_registered: "One of you is in a team of this tournament already.",
  check_in_closed: "The check-in is not open now: it opens before the start, at the time shown above.",
  not_confirmed: "Your partner has not accepted the team yet: they see the invitation when signed in.",
  self_partner: "A team is two players: name your partner, not yourself.",
  player_not_found: "No registered player has that name: check the spelling.",
  account_not_found: "No registered player has that name: check the spelling.",
  no_show_ban: "A player of your team missed a tournament match lately and may not register yet; the organizer may lift it.",
  tournament_full: "The tournament is full.",
  tournament_over: "This tournament is over.",
  already_started: "The tournament has started: its settings are fixed.",
  not_organizer: "Only the tournament's organizer may do that.",
  organizers_only: "Organizing tournaments needs an organizer account: an operator makes an account one.",
  not_partner: "Only the invited partner may accept the team.",
  not_in_team: "You are not in that team.",
  not_enough_teams: "Too few teams are ready to start (confirmed, and checked in when there is a check-in).",
  too_early: "The tournament does not start yet.",
  result_exists: "That match already has a result.",
  tournaments_unavailable: "The tournament service did not answer: try again in a moment.",
};

function sentence(text) {
  const t = (text || "").trim();
  if (!t) return "That did not work.";
  return t[0].toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? "" : ".");
}

// A refusal (an error frame, or an HTTP error's body) as a person reads it.
function plainError(e) {
  const say = PLAIN[e.code];
  if (typeof say === "function") return say(e);
  return say || sentence(e.message);
}

// The button, link or form the person used last ({el, at}): a refusal shows under it too,
// for a phone scrolled down to it never sees the header.
let lastAction = null;
document.addEventListener("click", (e) => {
  const el = e.target.closest("button, a");
  if (el) lastAction = { el, at: Date.now() };
}, true);
document.addEventListener("submit", (e) => { lastAction = { el: e.target, at: Date.now() }; }, true);

// ``text`` (or nothing) under what was used in the last ten seconds, unless ``elsewhere``
// (the page says it in a place of its own) or that is gone or hidden.
function sayNear(text, elsewhere = false) {
  const near = document.getElementById("near-error");
  if (near) near.remove();
  const act = lastAction;
  if (!text || elsewhere || !act || Date.now() - act.at > 10000 || !act.el.isConnected
      || act.el.closest("[hidden]")) return;
  const p = Object.assign(document.createElement("p"), { id: "near-error", textContent: text });
  p.setAttribute("role", "alert");
  if (act.el.tagName === "FORM") act.el.append(p); else act.el.after(p);
}
