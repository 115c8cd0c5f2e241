// @ts-check
// What every page does the same way, written once: the feed's WebSocket (its heartbeat watched, reconnected with a
// back-off), the offline banner, and the element helpers. Words and money are words.js's; pure helpers format.js's.
import { checkBuild } from "./words.js";

/** A feed is offline after this many heartbeats missed (the display's hello says how often one comes). */
export const MISSED_HEARTBEATS = 3;
/** The dealer console's back-off between two tries to reach the display again (ms); the other pages try each second. */
export const BACKOFF_MS = [500, 1000, 2000, 4000, 8000];
const EVERY_SECOND = [1000];
const WATCH_MS = 100;  // how often a feed's silence is looked at
const SVG = "http://www.w3.org/2000/svg";

// -- elements ------------------------------------------------------------------------------------------------------

/**
 * A new element with its class (none when `className` is empty) and its text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * `node` with each of `data` as a data attribute (`{seat: 3}`: data-seat="3").
 * @template {HTMLElement | SVGElement} E
 * @param {E} node
 * @param {Record<string, string | number>} data
 * @returns {E}
 */
export function withData(node, data) {
  for (const [key, value] of Object.entries(data)) node.dataset[key] = String(value);
  return node;
}

/**
 * The page's root marked with the table state it shows (data-table, data-hand, data-phase, data-seq, data-boot): what
 * a person's tests wait on, the same on every page that draws a table's state.
 * @param {HTMLElement} root
 * @param {{table?: string | null, hand?: number | null, phase?: string | null, seq?: number | null,
 *   boot?: string | null}} state
 */
export function markState(root, state) {
  root.dataset.table = state.table ?? "";
  root.dataset.hand = String(state.hand ?? "");
  root.dataset.phase = state.phase ?? "";
  root.dataset.seq = String(state.seq ?? "");
  root.dataset.boot = state.boot ?? "";
}

/**
 * A new SVG element with its attributes and text, appended to `parent`.
 * @param {Element} parent
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @param {string | null} [text]
 * @returns {SVGElement}
 */
export function svgEl(parent, tag, attrs = {}, text = null) {
  const node = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  parent.appendChild(node);
  return node;
}

/**
 * The page's element with this id; a page without it is a broken page, said at once.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`the page has no #${id}`);
  return node;
}

/**
 * The page's element with this id, of this kind (a dialog, a form, an SVG drawing).
 * @template {Element} T
 * @param {string} id
 * @param {new (...args: any[]) => T} kind
 * @returns {T}
 */
export function byIdOf(id, kind) {
  const node = document.getElementById(id);
  if (!(node instanceof kind)) throw new Error(`the page's #${id} is no ${kind.name}`);
  return node;
}

/**
 * Tell the tests and integrators that the page drew a message (`croupier:rendered`, docs/display.md).
 * @param {string} name
 * @param {object} detail
 */
export function announce(name, detail) {
  document.dispatchEvent(new CustomEvent(name, { detail }));
}

// -- offline -------------------------------------------------------------------------------------------------------

/**
 * Show or hide an offline banner: the banner shown, `marked` carrying `data-offline` (the banner itself unless a
 * tile carries it), `stale` greyed (nothing stale shown as current).
 * @param {boolean} offline
 * @param {HTMLElement} banner
 * @param {{stale: HTMLElement, marked?: HTMLElement}} where
 */
export function showOffline(offline, banner, { stale, marked = banner }) {
  if (banner.hidden === offline) banner.hidden = !offline;
  marked.toggleAttribute("data-offline", offline);
  stale.classList.toggle("stale", offline);
}

/** When a feed was last heard and how often it should be: silent after MISSED_HEARTBEATS heartbeats missed. */
export class Liveness {
  /** @param {number} heartbeatMs */
  constructor(heartbeatMs = 1000) {
    this.heartbeatMs = heartbeatMs;
    this.lastHeard = 0;
  }

  /**
   * How often the feed says a heartbeat comes (the hello's `heartbeat_s`); none (0): never silent.
   * @param {number} seconds
   */
  every(seconds) {
    this.heartbeatMs = seconds ? seconds * 1000 : Infinity;
  }

  heard() {
    this.lastHeard = performance.now();
  }

  lost() {
    this.lastHeard = 0;
  }

  /** @returns {boolean} */
  silent() {
    return performance.now() - this.lastHeard > MISSED_HEARTBEATS * this.heartbeatMs;
  }
}

// -- the feed ------------------------------------------------------------------------------------------------------

/**
 * A message the display sends on a page's WebSocket (docs/display.md): `kind` says which.
 * @typedef {{kind?: string, heartbeat_s?: number, [key: string]: any}} Message
 */

/**
 * How a page follows one of the display's WebSockets.
 * @typedef {object} FeedOptions
 * @property {(message: Message) => void} onMessage every message, the hello included, once the feed has read it
 * @property {(offline: boolean) => void} [onOffline] the feed fell silent or was heard again (no heartbeat watch
 *   without it)
 * @property {(message: Message) => boolean} [isFeed] a message that says the table is alive: every one but the
 *   hello unless said otherwise (the dealer's command replies and surveillance's recall do not)
 * @property {() => void} [onOpen] the socket opened
 * @property {() => void} [onClose] the socket closed (before the feed is marked offline and tried again)
 * @property {(opened: boolean) => Promise<boolean>} [ready] asked before each new try (`opened`: the last socket
 *   had opened): true tries, false stops (the page starts the feed again itself); a throw waits the next back-off
 * @property {number[]} [backoff] the waits between tries (ms), the last repeated; each second unless said otherwise
 */

/** One of the display's WebSockets, followed: the hello's heartbeat watched, reconnected after the back-off. */
export class Feed {
  /**
   * @param {string} path the display's WebSocket path (`/ws/public?table=T`)
   * @param {FeedOptions} options
   */
  constructor(path, options) {
    this.path = path;
    this.options = options;
    this.liveness = new Liveness();
    /** @type {WebSocket | null} */
    this.socket = null;
    this.tries = 0;  // tries since a socket last opened
    this.offline = true;
    this.running = false;
    /** @type {ReturnType<typeof setInterval> | null} */
    this.watch = null;
  }

  /** Connect now, and watch the heartbeat (the page shown offline until the feed is heard). */
  start() {
    this.running = true;
    const onOffline = this.options.onOffline;
    if (onOffline && this.watch === null) {
      this.setOffline(true);
      this.watch = setInterval(() => { if (this.socket !== null && this.liveness.silent()) this.setOffline(true); }, WATCH_MS);
    }
    this.connect();
  }

  /** Stop following: no socket, no watch, no new try. */
  stop() {
    this.running = false;
    if (this.watch !== null) clearInterval(this.watch);
    this.watch = null;
    const socket = this.socket;
    this.socket = null;
    socket?.close();
  }

  /** The socket is open: a command may be sent. */
  get open() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  /** The socket is open and, where the heartbeat is watched, the feed was heard within it: a message sent now is not
   * left in a stalled socket to land later (a network gone quiet keeps a socket open long after the page shows
   * OFFLINE). */
  get live() {
    return this.open && !(this.watch !== null && (this.offline || this.liveness.silent()));
  }

  /**
   * Send `message` as JSON; false when the socket is not open.
   * @param {object} message
   * @returns {boolean}
   */
  send(message) {
    if (!this.open || this.socket === null) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** @param {boolean} offline */
  setOffline(offline) {
    if (offline === this.offline && this.watch !== null) return;
    this.offline = offline;
    this.options.onOffline?.(offline);
  }

  connect() {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${this.path}`;
    const socket = new WebSocket(url);
    const isFeed = this.options.isFeed ?? ((message) => message.kind !== "hello");
    let opened = false;
    this.socket = socket;
    socket.onopen = () => {
      opened = true;
      this.tries = 0;
      void checkBuild();  // the display may have restarted on an update: a page of another build reloads
      this.options.onOpen?.();
    };
    socket.onmessage = (event) => {
      /** @type {Message} */
      const message = JSON.parse(event.data);
      if (message.kind === "hello" && typeof message.heartbeat_s === "number") this.liveness.every(message.heartbeat_s);
      if (isFeed(message)) {
        this.liveness.heard();
        this.setOffline(false);
      }
      this.options.onMessage(message);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;  // stopped, or an older socket
      this.socket = null;
      this.liveness.lost();
      this.options.onClose?.();
      this.setOffline(true);
      this.retry(opened);
    };
  }

  /** @param {boolean} opened */
  retry(opened) {
    const backoff = this.options.backoff ?? EVERY_SECOND;
    const delay = backoff[Math.min(this.tries, backoff.length - 1)];
    this.tries += 1;
    setTimeout(async () => {
      if (!this.running) return;  // stopped meanwhile
      let go = true;
      try {
        go = this.options.ready ? await this.options.ready(opened) : true;
      } catch {  // the display is not up yet: ask again after a longer wait
        this.retry(opened);
        return;
      }
      if (go) this.connect();
      else this.stop();
    }, delay);
  }
}
