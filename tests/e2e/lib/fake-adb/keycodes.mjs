// Android key codes by name (KeyEvent.KEYCODE_*), for `input keyevent`.
const NAMES = {
  HOME: 3, BACK: 4, CALL: 5, ENDCALL: 6, STAR: 17, POUND: 18, DPAD_UP: 19, DPAD_DOWN: 20, DPAD_LEFT: 21,
  DPAD_RIGHT: 22, DPAD_CENTER: 23, VOLUME_UP: 24, VOLUME_DOWN: 25, POWER: 26, CAMERA: 27, CLEAR: 28,
  COMMA: 55, PERIOD: 56, TAB: 61, SPACE: 62, ENTER: 66, DEL: 67, GRAVE: 68, MINUS: 69, EQUALS: 70,
  LEFT_BRACKET: 71, RIGHT_BRACKET: 72, BACKSLASH: 73, SEMICOLON: 74, APOSTROPHE: 75, SLASH: 76, AT: 77,
  PLUS: 81, MENU: 82, SEARCH: 84, MEDIA_PLAY_PAUSE: 85, PAGE_UP: 92, PAGE_DOWN: 93, ESCAPE: 111,
  FORWARD_DEL: 112, MOVE_HOME: 122, MOVE_END: 123, VOLUME_MUTE: 164, APP_SWITCH: 187, SLEEP: 223, WAKEUP: 224,
};
for (let d = 0; d <= 9; d++) NAMES[String(d)] = 7 + d;
for (let c = 0; c < 26; c++) NAMES[String.fromCharCode(65 + c)] = 29 + c;

/** The character a key types into a text field, if any. */
export function keyChar(code) {
  if (code >= 7 && code <= 16) return String(code - 7);
  if (code >= 29 && code <= 54) return String.fromCharCode(97 + code - 29);
  return { 55: ',', 56: '.', 62: ' ', 69: '-', 70: '=', 74: ';', 75: "'", 76: '/', 77: '@', 81: '+' }[code] ?? null;
}

/** KeyEvent.keyCodeFromString: a number, KEYCODE_NAME or NAME; 0 (UNKNOWN) otherwise. */
export function keyCodeFromString(s) {
  if (/^[0-9]+$/.test(s)) {
    const n = Number(s);
    return n >= 0 && n <= 316 ? n : 0;
  }
  const name = s.startsWith('KEYCODE_') ? s.slice(8) : s;
  return NAMES[name] ?? 0;
}
