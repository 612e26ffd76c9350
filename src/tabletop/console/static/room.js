// The room view: follows /events and draws each snapshot; on a TV it keeps the page to the
// screen (no scrolling) and, once switched on, plays a tone for a throw read, a reveal, a
// strike or a hit, and a win.
"use strict";
(() => {
  const root = document.documentElement;
  const body = document.body;

  // -- the page is the screen ----------------------------------------------------------------
  // On a landscape TV (room.css's layout) the whole page shrinks, a step at a time, while
  // anything overflows the screen; never below FIT_FLOOR (0.8rem text stays 20 px at 1920).
  const FIT_FLOOR = 0.87;
  const tv = window.matchMedia("(min-width: 1000px) and (orientation: landscape)");
  function overflowing() {
    if (root.scrollHeight > innerHeight + 0.5 || root.scrollWidth > innerWidth + 0.5) return true;
    for (const part of document.querySelectorAll("main > .stage, main > .columns")) {
      if (part.scrollHeight > part.clientHeight + 1) return true;
    }
    return false;
  }
  function fit() {
    if (!tv.matches) { root.style.removeProperty("--fit"); body.dataset.fit = "1"; return; }
    TableView.fit(overflowing, FIT_FLOOR);
  }
  window.addEventListener("resize", fit);
  const picture = document.getElementById("dice-picture");
  if (picture) picture.addEventListener("load", fit);

  // -- sounds ----------------------------------------------------------------------------------
  // Tones made here (WebAudio), no audio files; off until the button turns them on (a
  // browser lets a page play sound only after a tap anyway). Each tone played is counted on
  // the body (data-sounds, data-last-sound), which is what the tests read.
  const button = document.getElementById("sounds");
  let audio = null;
  let on = false;
  const TONES = {
    throw: [[660, 0, 0.06], [880, 0.08, 0.06]],
    reveal: [[523, 0, 0.12], [784, 0.12, 0.2]],
    strike: [[150, 0, 0.35, "sawtooth"]],
    win: [[523, 0, 0.15], [659, 0.15, 0.15], [784, 0.3, 0.15], [1047, 0.45, 0.4]],
  };
  function play(kind) {
    if (!on) return;
    body.dataset.sounds = String(Number(body.dataset.sounds || 0) + 1);
    body.dataset.lastSound = kind;
    if (!audio) return;
    const start = audio.currentTime + 0.02;
    for (const [frequency, at, length, wave] of TONES[kind]) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.type = wave || "sine";
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + at);
      gain.gain.exponentialRampToValueAtTime(0.25, start + at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + at);
      tone.stop(start + at + length + 0.05);
    }
  }
  function switchSounds(wanted) {
    on = wanted;
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = on ? "Sounds: on" : "Sounds: off";
    body.dataset.soundsOn = on ? "yes" : "no";
    if (on && !audio) {
      const Context = window.AudioContext || window.webkitAudioContext;
      try { audio = Context ? new Context() : null; } catch (refused) { audio = null; }
    }
    if (audio && on && audio.state === "suspended") audio.resume();
  }
  if (button) button.addEventListener("click", () => switchSounds(!on));
  body.dataset.soundsOn = "no";

  // What happened between two snapshots, from the public state only: what the game's screen
  // counts as shown (cards turned face-up, a hand revealed) and as hits (Strikes, points,
  // Strain), each a number that grows.
  function counts(snapshot) {
    const state = snapshot.state || {};
    const game = snapshot.prompt && snapshot.prompt.game;
    const { shown = 0, hits = 0 } = TableView.said(game, "tally", state) || {};
    const dice = snapshot.dice;
    return {
      game, shown, hits,
      read: dice && dice.event === "rolled" ? `${snapshot.dice_at}` : null,
      over: state.phase === "finished",
    };
  }
  let before = null;
  function listen(snapshot) {
    const now = counts(snapshot);
    if (before && before.game === now.game) {
      if (now.over && !before.over) play("win");
      else if (now.hits > before.hits) play("strike");
      else if (now.shown > before.shown) play("reveal");
      else if (now.read && now.read !== before.read) play("throw");
    } else if (before && now.read && now.read !== before.read) play("throw");
    before = now;
  }

  document.addEventListener("table-rendered", (event) => {
    listen(event.detail);
    fit();
  });
  TableView.follow("/events", body);
})();
