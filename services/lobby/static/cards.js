// Card faces, shared by the web client and the player's replay: plain script, no build step.
"use strict";

const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };

// Card faces drawn as SVG by this client: nothing fetched, nothing to license. Each face
// has the rank and suit in two corners, the suit's pips laid out as on a printed card
// (a framed letter for the court cards), red hearts and diamonds, black spades and clubs,
// and a star for each joker. Suits are drawn as paths, so no font needs to hold them.

const CARD_SVG = "http://www.w3.org/2000/svg";
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_NAMES = { A: "Ace", K: "King", Q: "Queen", J: "Jack", T: "10" };
const RED = "#c21d1d", BLACK = "#161616";
const FONT = "Arial, Helvetica, sans-serif";

// Each suit in a 100 x 100 box.
const SUIT_PATHS = {
  H: "M50 92C22 68 2 50 2 29 2 13 14 3 28 3c10 0 18 6 22 15 4-9 12-15 22-15 14 0 26 10 26 26 0 21-20 39-48 63z",
  D: "M50 2 88 50 50 98 12 50z",
  S: "M50 2C36 22 4 40 4 62c0 14 11 24 24 24 9 0 16-4 20-11-1 10-6 18-16 24h36c-10-6-15-14-16-24 4 7 11 11 20 11 13 0 24-10 24-24C96 40 64 22 50 2z",
  C: "M50 4a22 22 0 0 0-20 31 22 22 0 1 0 14 34c-1 11-6 20-15 27h42c-9-7-14-16-15-27a22 22 0 1 0 14-34A22 22 0 0 0 50 4z",
};
const STAR = "M50 4l13 30 33 3-25 22 8 33-29-17-29 17 8-33L4 37l33-3z";

// Pip centres on a 250 x 350 face, per rank, clear of the corners.
const PL = 85, PC = 125, PR = 165;
const PIPS = {
  A: [[PC, 175]], 2: [[PC, 90], [PC, 260]], 3: [[PC, 90], [PC, 175], [PC, 260]],
  4: [[PL, 90], [PR, 90], [PL, 260], [PR, 260]],
  5: [[PL, 90], [PR, 90], [PC, 175], [PL, 260], [PR, 260]],
  6: [[PL, 90], [PR, 90], [PL, 175], [PR, 175], [PL, 260], [PR, 260]],
  7: [[PL, 90], [PR, 90], [PC, 132], [PL, 175], [PR, 175], [PL, 260], [PR, 260]],
  8: [[PL, 90], [PR, 90], [PC, 132], [PL, 175], [PR, 175], [PC, 218], [PL, 260], [PR, 260]],
  9: [[PL, 90], [PR, 90], [PL, 147], [PR, 147], [PC, 175], [PL, 203], [PR, 203], [PL, 260],
      [PR, 260]],
  T: [[PL, 90], [PR, 90], [PC, 118], [PL, 147], [PR, 147], [PL, 203], [PR, 203], [PC, 232],
      [PL, 260], [PR, 260]],
};

function svgNode(name, attrs, text) {
  const el = document.createElementNS(CARD_SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

// A suit (or a joker's star) centred on (x, y), ``size`` wide; upside down below the
// middle, as printed cards have it.
function pip(d, x, y, size, fill, flip = false) {
  const turn = flip ? `rotate(180 ${x} ${y}) ` : "";
  return svgNode("path", { d, fill,
    transform: `${turn}translate(${x - size / 2} ${y - size / 2}) scale(${size / 100})` });
}

function label(x, y, size, fill, text, extra = {}) {
  return svgNode("text", { x, y, "font-size": size, "font-weight": 700, fill,
                           "text-anchor": "middle", "font-family": FONT, ...extra }, text);
}

function cardName(code) {
  if (code === "BJ") return "Big joker";
  if (code === "LJ") return "Little joker";
  return `${RANK_NAMES[code[0]] || code[0]} of ${SUIT_NAMES[code[1]]}`;
}

// The rank over the suit in the top left corner, and turned round in the bottom right.
function corners(svg, rank, d, fill) {
  for (const turned of [false, true]) {
    const g = svgNode("g", turned ? { transform: "rotate(180 125 175)" } : {});
    g.append(label(30, 62, rank.length > 1 ? 44 : 54, fill, rank), pip(d, 30, 90, 34, fill));
    svg.append(g);
  }
}

// One card face: an <svg> that scales with the box it sits in.
function cardFace(code) {
  const joker = code === "BJ" || code === "LJ";
  const fill = joker ? (code === "BJ" ? RED : BLACK) : "HD".includes(code[1]) ? RED : BLACK;
  const svg = svgNode("svg", { viewBox: "0 0 250 350", role: "img", "aria-label": cardName(code),
                               class: "face" });
  svg.append(svgNode("rect", { x: 3, y: 3, width: 244, height: 344, rx: 18, fill: "#fff",
                               stroke: "#777", "stroke-width": 4 }));
  if (joker) {
    corners(svg, "J", STAR, fill);
    svg.append(pip(STAR, 125, 150, 150, fill),
               label(125, 272, 46, fill, code === "BJ" ? "BIG" : "LITTLE"),
               label(125, 315, 34, fill, "JOKER", { "font-weight": 400 }));
    return svg;
  }
  const rank = code[0] === "T" ? "10" : code[0];
  const d = SUIT_PATHS[code[1]];
  corners(svg, rank, d, fill);
  if ("JQK".includes(code[0])) {
    svg.append(svgNode("rect", { x: 62, y: 52, width: 126, height: 246, rx: 10, fill: "none",
                                 stroke: fill, "stroke-width": 5 }),
               label(125, 190, 120, fill, rank, { "font-family": "Georgia, serif" }),
               pip(d, 125, 245, 60, fill));
    return svg;
  }
  const size = code[0] === "A" ? 110 : 46;
  for (const [x, y] of PIPS[code[0]]) svg.append(pip(d, x, y, size, fill, y > 175));
  return svg;
}

function cardLabel(code) {
  if (code === "BJ") return "Big ★";
  if (code === "LJ") return "Little ★";
  const rank = code[0] === "T" ? "10" : code[0];
  return rank + SUIT[code[1]];
}

// A card: its face as SVG, named for screen readers and in its tooltip.
function cardEl(code, tag = "span") {
  const el = document.createElement(tag);
  el.className = "card" + ("HD".includes(code[1]) && code.length === 2 ? " red" : "");
  el.append(cardFace(code));
  el.title = cardName(code);
  el.setAttribute("aria-label", cardName(code));
  el.dataset.card = code;
  return el;
}
