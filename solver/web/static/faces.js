// mille-sabords: the six faces drawn in SVG, so that the page needs no emoji font.
// Each icon is decorative (aria-hidden): the face's name is always in the text or the label.

const SVG = "http://www.w3.org/2000/svg";
const INK = "#14213d";

// [tag, attributes] per shape, in a 24 x 24 box.
const SHAPES = [
  [ // skull
    ["path", { d: "M12 2.5c-5 0-8.5 3.4-8.5 8 0 2.6 1.2 4.5 3 5.6V20h11v-3.9c1.8-1.1 3-3 3-5.6 0-4.6-3.5-8-8.5-8z", fill: "#f8fafc", stroke: INK, "stroke-width": "1.5" }],
    ["circle", { cx: "8.6", cy: "11", r: "2.2", fill: INK }],
    ["circle", { cx: "15.4", cy: "11", r: "2.2", fill: INK }],
    ["path", { d: "M10 20v-2.5M12 20v-2.5M14 20v-2.5", stroke: INK, "stroke-width": "1.2" }],
  ],
  [ // monkey
    ["circle", { cx: "4.5", cy: "11", r: "3", fill: "#8b5a2b", stroke: INK, "stroke-width": "1" }],
    ["circle", { cx: "19.5", cy: "11", r: "3", fill: "#8b5a2b", stroke: INK, "stroke-width": "1" }],
    ["circle", { cx: "12", cy: "12", r: "8", fill: "#8b5a2b", stroke: INK, "stroke-width": "1.2" }],
    ["ellipse", { cx: "12", cy: "15", rx: "5", ry: "3.8", fill: "#e8c39e" }],
    ["circle", { cx: "9.3", cy: "10", r: "1.3", fill: INK }],
    ["circle", { cx: "14.7", cy: "10", r: "1.3", fill: INK }],
    ["path", { d: "M10 16.2q2 1.4 4 0", stroke: INK, "stroke-width": "1", fill: "none" }],
  ],
  [ // parrot
    ["path", { d: "M14 3c-4.5 0-7.5 3.5-7.5 8 0 3 1.2 5.5 3 7.5L8 22h5l1-3c3.5-1.2 5.5-4.5 5.5-8.5C19.5 6 17.5 3 14 3z", fill: "#16a34a", stroke: INK, "stroke-width": "1.2" }],
    ["path", { d: "M17.5 6.5c2.5.3 4 2 4 4.5l-2.8-.8z", fill: "#f59e0b", stroke: INK, "stroke-width": "1" }],
    ["path", { d: "M9 12c1.5 3 3.5 4.5 6 5", stroke: "#dc2626", "stroke-width": "2.2", fill: "none" }],
    ["circle", { cx: "15", cy: "7.5", r: "1.3", fill: INK }],
  ],
  [ // sword
    ["path", { d: "M20.5 3.5 9 15", stroke: "#94a3b8", "stroke-width": "3.2", "stroke-linecap": "round" }],
    ["path", { d: "M20.5 3.5 9 15", stroke: INK, "stroke-width": "0.8" }],
    ["path", { d: "M6 12l6 6", stroke: "#b45309", "stroke-width": "2.4", "stroke-linecap": "round" }],
    ["path", { d: "M8.5 15.5 4 20", stroke: "#7c2d12", "stroke-width": "2.6", "stroke-linecap": "round" }],
  ],
  [ // coin
    ["circle", { cx: "12", cy: "12", r: "9.5", fill: "#eab308", stroke: INK, "stroke-width": "1.2" }],
    ["circle", { cx: "12", cy: "12", r: "6.5", fill: "none", stroke: "#a16207", "stroke-width": "1.4" }],
    ["path", { d: "M12 8.5v7", stroke: "#a16207", "stroke-width": "1.8", "stroke-linecap": "round" }],
  ],
  [ // diamond
    ["path", { d: "M6 4h12l4 5.5L12 21 2 9.5z", fill: "#60a5fa", stroke: INK, "stroke-width": "1.2", "stroke-linejoin": "round" }],
    ["path", { d: "M2 9.5h20M9 4 7.5 9.5 12 21l4.5-11.5L15 4", fill: "none", stroke: "#1e3a8a", "stroke-width": "0.9" }],
  ],
];

export function faceIcon(face) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const [tag, attrs] of SHAPES[face]) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    svg.append(el);
  }
  return svg;
}
