#!/usr/bin/env node
// An example arena bot in plain JavaScript: Node 20, built-ins only, nothing of this project.
//   node --experimental-websocket docs/examples/node_bot.js --url ws://127.0.0.1:8765 --name jsbot
// Options: --url, --name, --token, --games liars_dice,bulls_cows. It follows docs/PROTOCOL.md
// ("A session", the message tables) and docs/NETWORK.md ("Drops, reconnects and resume").
'use strict';

const options = { url: 'ws://127.0.0.1:8765', name: 'jsbot', token: null };
options.games = 'liars_dice,bulls_cows';
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].slice(2);
  if (!process.argv[i].startsWith('--') || !(key in options) || process.argv[i + 1] === undefined) {
    console.error(`unknown option ${process.argv[i]}: use --url, --name, --token, --games`);
    process.exit(2);
  }
  options[key] = process.argv[i + 1];
}
const log = (...parts) => console.log(new Date().toISOString(), `[${options.name}]`, ...parts);
const randomOf = (list) => list[Math.floor(Math.random() * list.length)];

// ---- liar's dice --------------------------------------------------------------------------

// P(at least k successes in n independent tries of chance p).
function atLeast(k, n, p) {
  let total = 0;
  let ways = 1; // C(n, i)
  for (let i = 0; i <= n; i++) {
    if (i >= k) total += ways * p ** i * (1 - p) ** (n - i);
    ways = (ways * (n - i)) / (i + 1);
  }
  return total;
}

// The observation holds all a seat may know: its own dice, every seat's dice count, the bids of
// the round, and (re-roll rule) the dice each seat has shown, which count in a challenge too.
function playLiarsDice(obs, legal) {
  const known = obs.dice.concat(...obs.revealed);
  const hidden = obs.dice_counts.reduce((a, b) => a + b, 0) - known.length;
  const chance = (count, face) => {
    // While the observation says ones are wild they count as any face; a bid on ones counts
    // ones only. Each hidden die shows the face with chance 1/6, or 2/6 counting wild ones.
    const wild = obs.ones_wild && face !== 1;
    const seen = known.filter((die) => die === face || (wild && die === 1)).length;
    return atLeast(count - seen, hidden, wild ? 2 / 6 : 1 / 6);
  };
  const standing = obs.bids[obs.bids.length - 1]; // none yet when we open
  if (legal.includes('challenge') && chance(standing.count, standing.face) < 0.5) {
    return 'challenge';
  }
  // Else the likeliest legal bid, "bid 3x5"; on a tie the first listed, the smallest raise.
  // (Under the re-roll rule `legal` also lists "reroll …" actions: this bot never re-rolls.)
  const bids = legal.filter((action) => action.startsWith('bid '));
  const odds = (bid) => chance(...bid.slice(4).split('x').map(Number));
  const likeliest = bids.reduce((best, bid) => (odds(bid) > odds(best) ? bid : best), bids[0]);
  return likeliest ?? 'challenge'; // no raise left: the standing bid claims every die
}

// ---- 1A2B ---------------------------------------------------------------------------------

function feedback(code, guess) {
  let inPlace = 0; // the xA of xAyB
  let elsewhere = 0; // the yB
  for (let i = 0; i < guess.length; i++) {
    if (guess[i] === code[i]) inPlace++;
    else if (code.includes(guess[i])) elsewhere++;
  }
  return `${inPlace}A${elsewhere}B`;
}

// Every code of the game: `digits` distinct symbols of `alphabet` (504 codes by default).
function allCodes(alphabet, digits, prefix = '') {
  if (prefix.length === digits) return [prefix];
  const unused = [...alphabet].filter((symbol) => !prefix.includes(symbol));
  return unused.flatMap((symbol) => allCodes(alphabet, digits, prefix + symbol));
}

const secrets = new Map(); // "match/game" -> the code this bot chose for that duel
const fitsAll = (code, exchanges) => exchanges.every((x) => feedback(code, x.guess) === x.feedback);

// Guesses and reveals come with no `legal` list (too many codes) but a `hint` such as
// "guess <3 distinct symbols of 123456789>"; the observation gives the same as `digits` and
// `alphabet`, and `phase` says which decision is due. Answers do come with `legal`.
function playBullsCows(msg) {
  const obs = msg.observation;
  const codes = allCodes(obs.alphabet, obs.digits);
  const key = `${msg.match}/${msg.game}`;
  // No code is committed before the reveal, but the reveal must match every answer given or the
  // game is lost (breach): a bot restarted mid-game chooses again among the codes that do.
  if (!secrets.has(key) || !fitsAll(secrets.get(key), obs.answers)) {
    secrets.set(key, randomOf(codes.filter((code) => fitsAll(code, obs.answers))));
  }
  const secret = secrets.get(key);
  if (obs.phase === 'answer') return `answer ${feedback(secret, obs.pending_guess)}`;
  if (obs.phase === 'reveal') return `reveal ${secret}`;
  return `guess ${randomOf(codes.filter((code) => fitsAll(code, obs.guesses)))}`;
}

// ---- the session --------------------------------------------------------------------------

const FIRST_BACKOFF_MS = 200; // then doubling to 10 s, as `bots run` does (NETWORK.md)
let socket = null;
let resumeToken = null; // the last welcome's: a hello with it takes the seat back after a drop
let withFeatures = true; // a server older than `features` refuses them: then hello without
let welcomedHere = false; // on the current connection
let stopping = false;
let backoffMs = FIRST_BACKOFF_MS;
const players = new Map(); // match -> its players' names, in the order of match_end's totals

const send = (message) => socket.send(JSON.stringify({ v: 1, ...message }));

function sayHello() {
  const hello = { type: 'hello', name: options.name, games: options.games.split(',') };
  // Opt in to the v1 additions: without them a time bank, the refusal codes and match_aborted
  // are never sent (older bots refuse fields and codes they do not know).
  if (withFeatures) hello.features = ['bank_ms', 'refusal_codes', 'match_aborted'];
  if (options.token) hello.token = options.token;
  if (resumeToken) hello.resume = resumeToken;
  send(hello);
}

function answer(request) {
  let action;
  try {
    const game = request.observation.game;
    if (game === 'liars_dice') action = playLiarsDice(request.observation, request.legal);
    else if (game === 'bulls_cows') action = playBullsCows(request);
    else action = request.legal[0]; // a game this bot has no strategy for
  } catch (error) {
    log('could not decide (after the deadline the referee asks again, then plays for us):', error);
    return;
  }
  // It answers at once; a bot that thinks must answer within deadline_ms (plus bank_ms, if any).
  // `seq` names the request; `match` and `game` echo it too, so a late answer to an earlier
  // one can never be taken for this one (it gets stale_seq).
  send({ type: 'action', match: request.match, game: request.game, seq: request.seq, action });
}

function onEvent({ match, game, payload }) {
  // The game's own events are not needed: every request's observation holds all the seat may know.
  if (payload.game !== 'arena') return;
  if (payload.kind === 'match_start') players.set(match, payload.players);
  if (payload.kind === 'game_end') secrets.delete(`${match}/${game}`);
  if (payload.kind === 'penalty') log(`penalty: the referee played ${payload.action} for us`);
  if (payload.kind === 'match_end') {
    const names = players.get(match) ?? payload.totals.map((_, i) => `player ${i}`);
    log(`match ${match} over:`, names.map((name, i) => `${name} ${payload.totals[i]}`).join(', '));
    players.delete(match);
  }
}

function onError(message) {
  log(`error ${message.code}${message.seq ? ` (seq ${message.seq})` : ''}: ${message.text}`);
  if (message.code === 'auth_failed') process.exit(1); // the same hello would be refused again
  if (message.code === 'name_in_use' && resumeToken === null) process.exit(1); // another bot's
  if (message.code === 'resume_unknown') {
    // The session ended while we were away (its table closed, the server restarted): the
    // server closes the connection; come back at once with a plain hello.
    resumeToken = null;
    backoffMs = 0;
  }
  if (message.code === 'no_session') sayHello(); // the server forgot us: resume with the token
  if (message.code === 'bad_message' && !welcomedHere) {
    if (!withFeatures) process.exit(1); // refused without features as well: nothing to retry
    withFeatures = false;
    sayHello();
  }
  // match_aborted: no match_end follows and any pending request is void; we are back in the lobby.
  if (message.code === 'match_aborted') {
    players.delete(message.match);
    for (const key of secrets.keys()) if (key.startsWith(`${message.match}/`)) secrets.delete(key);
  }
}

function onMessage(message) {
  if (message.type === 'welcome') {
    resumeToken = message.resume_token;
    welcomedHere = true;
    backoffMs = FIRST_BACKOFF_MS;
    log(`welcome, session ${message.session}`);
  } else if (message.type === 'request') answer(message);
  else if (message.type === 'event') onEvent(message);
  else if (message.type === 'error') onError(message);
  else if (message.type === 'bye') {
    log(`bye: ${message.reason ?? ''}`);
    process.exit(0); // the server ends the session (shutting down, or answering our bye)
  } else log('unexpected message', message);
}

function connect() {
  const ws = new WebSocket(options.url);
  ws.binaryType = 'arraybuffer';
  socket = ws;
  welcomedHere = false;
  let gone = false;
  // Node 20's WebSocket may fire only `error` when the connect itself fails, or `error` then
  // `close`: either one schedules the next attempt, once.
  const lost = (why) => {
    if (gone) return;
    gone = true;
    if (stopping) process.exit(0);
    const wait = backoffMs * (1 + Math.random() / 4); // jitter: many bots do not retry in step
    backoffMs = Math.min(Math.max(backoffMs * 2, FIRST_BACKOFF_MS), 10_000);
    log(`connection ${why}; trying again in ${Math.round(wait)} ms`);
    setTimeout(connect, wait);
  };
  ws.onopen = sayHello;
  ws.onmessage = (event) => {
    const text = typeof event.data === 'string' ? event.data : Buffer.from(event.data).toString();
    if (ws === socket) onMessage(JSON.parse(text)); // every frame is one JSON object
  };
  ws.onerror = (event) => lost(`failed (${event.message ?? 'error'})`);
  ws.onclose = (event) => lost(`closed (${event.code})`);
}

// Stopped by its owner, a bot says bye first; the server answers with its own bye (above).
function leave() {
  if (stopping || socket?.readyState !== WebSocket.OPEN) process.exit(0);
  stopping = true;
  send({ type: 'bye', reason: 'stopped by its owner' });
  setTimeout(() => process.exit(0), 2000);
}
process.on('SIGINT', leave);
process.on('SIGTERM', leave);

connect();
