// A 5×7 bitmap font for the fake screen, drawn for this project. Each glyph is
// 7 rows; each row one base-32 digit whose bits 4..0 are columns left..right.
// Enough to make the screenshot show the app's state to a person; tests read
// text from the uiautomator XML, never from pixels.
const ROWS = {
  ' ': '0000000', '!': '4444404', '"': 'aa00000', '#': 'aavavaa', $: '4fke5u4',
  '%': 'op248j3', '&': 'cik8lid', "'": '4480000', '(': '2488842', ')': '8422248',
  '*': '04lel40', '+': '044v440', ',': '0000c48', '-': '000v000', '.': '00000cc',
  '/': '1248g00', 0: 'ehjlphe', 1: '4c4444e', 2: 'eh1248v', 3: 'v2421he',
  4: '26aiv22', 5: 'vgu11he', 6: '68guhhe', 7: 'v124888', 8: 'ehhehhe',
  9: 'ehhf12c', ':': '0cc0cc0', ';': '0cc0c48', '<': '248g842', '=': '00v0v00',
  '>': '8421248', '?': 'eh12404', '@': 'eh1dlle', A: 'ehhvhhh', B: 'uhhuhhu',
  C: 'ehggghe', D: 'sihhhis', E: 'vgguggv', F: 'vgguggg', G: 'ehgnhhf',
  H: 'hhhvhhh', I: 'e44444e', J: '72222ic', K: 'hikokih', L: 'ggggggv',
  M: 'hrllhhh', N: 'hhpljhh', O: 'ehhhhhe', P: 'uhhuggg', Q: 'ehhhlid',
  R: 'uhhukih', S: 'fgge11u', T: 'v444444', U: 'hhhhhhe', V: 'hhhhha4',
  W: 'hhhllla', X: 'hha4ahh', Y: 'hha4444', Z: 'v1248gv', '[': 'e88888e',
  '\\': '0g84210', ']': 'e22222e', '^': '4ah0000', _: '000000v', '`': '8400000',
  a: '00e1fhf', b: 'ggmphhu', c: '00egghe', d: '11djhhf', e: '00ehvge',
  f: '698s888', g: '0fhhf1e', h: 'ggmphhh', i: '40c444e', j: '20622ic',
  k: 'ggikoki', l: 'c44444e', m: '00qllhh', n: '00mphhh', o: '00ehhhe',
  p: '00uhugg', q: '00djf11', r: '00mpggg', s: '00ege1u', t: '88s8896',
  u: '00hhhjd', v: '00hhha4', w: '00hhlla', x: '00ha4ah', y: '00hhf1e',
  z: '00v248v', '{': '2448442', '|': '4444444', '}': '8442448', '~': '008l200',
  '\u2022': '00eee00',
};
const UNKNOWN = 'vhhhhhv';

export const GLYPH_W = 5;
export const GLYPH_H = 7;

/** Rows of the glyph for one character: 7 numbers, bit 4 = leftmost column. */
export function glyphRows(ch) {
  const s = ROWS[ch] ?? UNKNOWN;
  return [...s].map((d) => parseInt(d, 32));
}
