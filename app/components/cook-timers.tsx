import { useCallback, useEffect, useState } from "react";

import { formatClock } from "~/lib/cook-clock";

// Cook mode's timers (docs/rules.md#cook-mode), in the browser only: several at once, each kept by
// the time it ends, so moving between steps, a reload or a page the service worker answered
// offline shows them right. They live in the tab's sessionStorage under the recipe; Date.now and
// setInterval drive them (which Playwright's clock can drive in tests).

export interface CookTimer {
  id: string;
  /** "15 min", as the step's button said. */
  label: string;
  /** The step it was started from (1-based). */
  step: number;
  /** When it ends (ms since the epoch); while paused, unused. */
  endsAt: number;
  /** Paused: what was left then (ms); null while it runs. */
  pausedLeft: number | null;
  /** Its sound has been played (once, when it ended). */
  rung: boolean;
}

const storageKey = (recipeId: string) => `recipals-cook-timers:${recipeId}`;

function readTimers(recipeId: string): CookTimer[] {
  try {
    const stored: unknown = JSON.parse(window.sessionStorage.getItem(storageKey(recipeId)) ?? "[]");
    if (!Array.isArray(stored)) return [];
    return stored.filter(
      (timer): timer is CookTimer =>
        typeof timer === "object" &&
        timer !== null &&
        typeof timer.id === "string" &&
        typeof timer.label === "string" &&
        Number.isInteger(timer.step) &&
        Number.isFinite(timer.endsAt) &&
        typeof timer.rung === "boolean",
    ).map((timer) => ({ ...timer, pausedLeft: Number.isFinite(timer.pausedLeft) ? timer.pausedLeft : null }));
  } catch {
    return []; // storage refused (private mode) or damaged: no timers to restore
  }
}

function writeTimers(recipeId: string, timers: CookTimer[]): void {
  try {
    if (timers.length === 0) window.sessionStorage.removeItem(storageKey(recipeId));
    else window.sessionStorage.setItem(storageKey(recipeId), JSON.stringify(timers));
  } catch {
    // Storage refused: the timers still run for as long as the page stays open.
  }
}

// ---------------------------------------------------------------------------------------------
// Sound: a short beep made by Web Audio (no file to download or keep offline).

let audio: AudioContext | null = null;

/** Makes (or wakes) the audio context; called from a click, which browsers require before sound. */
function readyAudio(): AudioContext | null {
  try {
    if (!audio) {
      const Context = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
      if (!Context) return null;
      audio = new Context();
    }
    if (audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  } catch {
    return null;
  }
}

/** Three short beeps. */
function beep(): void {
  const context = readyAudio();
  if (!context) return;
  try {
    const start = context.currentTime + 0.05;
    for (let i = 0; i < 3; i++) {
      const at = start + i * 0.4;
      const tone = context.createOscillator();
      const volume = context.createGain();
      tone.type = "sine";
      tone.frequency.value = 880;
      volume.gain.setValueAtTime(0.0001, at);
      volume.gain.exponentialRampToValueAtTime(0.3, at + 0.02);
      volume.gain.exponentialRampToValueAtTime(0.0001, at + 0.3);
      tone.connect(volume).connect(context.destination);
      tone.start(at);
      tone.stop(at + 0.32);
    }
  } catch {
    // No sound: the alert on the page still says it.
  }
}

// ---------------------------------------------------------------------------------------------

/** The recipe's timers: start, cancel, dismiss, and the time now (ticking while one runs). */
export function useCookTimers(recipeId: string) {
  // Whose timers the state holds: null until restored from the tab's storage once the page runs
  // (the server render has none), so nothing is written back before they are read.
  const [held, setHeld] = useState<{ recipeId: string; timers: CookTimer[] } | null>(null);
  const [now, setNow] = useState(0);
  const timers = held?.recipeId === recipeId ? held.timers : NO_TIMERS;

  useEffect(() => {
    setHeld({ recipeId, timers: readTimers(recipeId) });
    setNow(Date.now());
  }, [recipeId]);

  useEffect(() => {
    if (held) writeTimers(held.recipeId, held.timers);
  }, [held]);

  const update = useCallback(
    (change: (timers: CookTimer[]) => CookTimer[]) =>
      setHeld((current) => (current && current.recipeId === recipeId ? { recipeId, timers: change(current.timers) } : current)),
    [recipeId],
  );

  const running = timers.some((timer) => !timer.rung && timer.pausedLeft === null);
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const tick = window.setInterval(() => setNow(Date.now()), 250);
    return () => window.clearInterval(tick);
  }, [running]);

  // A timer that has ended rings once; it then shows as an alert until dismissed.
  useEffect(() => {
    if (now === 0 || !timers.some((timer) => hasEnded(timer, now))) return;
    beep();
    update((current) => current.map((timer) => (hasEnded(timer, now) ? { ...timer, rung: true } : timer)));
  }, [now, timers, update]);

  const start = useCallback(
    (label: string, step: number, seconds: number) => {
      readyAudio(); // this click lets the page make a sound later
      const startedAt = Date.now();
      setNow(startedAt);
      const id = `${startedAt}-${Math.random().toString(36).slice(2, 8)}`;
      update((current) => [...current, { id, label, step, endsAt: startedAt + seconds * 1000, pausedLeft: null, rung: false }]);
    },
    [update],
  );
  // Pausing keeps what is left; resuming sets a new end from it.
  const pause = useCallback(
    (id: string) => {
      const at = Date.now();
      setNow(at);
      update((current) => current.map((timer) => (timer.id === id && timer.pausedLeft === null && !timer.rung ? { ...timer, pausedLeft: Math.max(0, timer.endsAt - at) } : timer)));
    },
    [update],
  );
  const resume = useCallback(
    (id: string) => {
      const at = Date.now();
      setNow(at);
      update((current) => current.map((timer) => (timer.id === id && timer.pausedLeft !== null ? { ...timer, endsAt: at + timer.pausedLeft, pausedLeft: null } : timer)));
    },
    [update],
  );
  const remove = useCallback((id: string) => update((current) => current.filter((timer) => timer.id !== id)), [update]);
  return { timers, now, start, pause, resume, cancel: remove, dismiss: remove };
}

export type CookTimers = ReturnType<typeof useCookTimers>;

const NO_TIMERS: CookTimer[] = [];

/** A running (not paused) timer whose time is up. */
const hasEnded = (timer: CookTimer, now: number) => !timer.rung && timer.pausedLeft === null && timer.endsAt <= now;
const isDone = (timer: CookTimer, now: number) => timer.rung || hasEnded(timer, now);
const timeLeft = (timer: CookTimer, now: number) => timer.pausedLeft ?? timer.endsAt - now;

/**
 * A step's timer buttons, one per duration it names: "Start timer 15 min"; once started, the
 * button pauses it ("Pause timer 15 min", then "Resume timer 15 min") and Cancel sits beside it.
 */
export function StepTimerButtons({ durations, step, timers }: { durations: { label: string; seconds: number }[]; step: number; timers: CookTimers }) {
  return (
    <div className="cook__start-timers">
      {durations.map((duration) => {
        const started = timers.timers.find((timer) => timer.step === step && timer.label === duration.label && !isDone(timer, timers.now));
        if (!started)
          return (
            <button key={duration.label} type="button" className="button" onClick={() => timers.start(duration.label, step, duration.seconds)}>
              Start timer {duration.label}
            </button>
          );
        const paused = started.pausedLeft !== null;
        return (
          <span key={duration.label} className="cook__timer-controls">
            <button
              type="button"
              className={paused ? "button" : "button button--ghost"}
              onClick={() => (paused ? timers.resume(started.id) : timers.pause(started.id))}
            >
              {paused ? "Resume" : "Pause"} timer {duration.label}
              <span className="cook__timer-left" aria-hidden="true">
                {formatClock(timeLeft(started, timers.now))}
              </span>
            </button>
            <button type="button" className="button button--ghost" onClick={() => timers.cancel(started.id)}>
              Cancel timer {duration.label}
            </button>
          </span>
        );
      })}
    </div>
  );
}

/** "Timer done" alerts and the timers still running, with what is left of each. */
export function CookTimerPanel({ timers: { timers, now, pause, resume, cancel: onCancel, dismiss: onDismiss } }: { timers: CookTimers }) {
  const done = timers.filter((timer) => isDone(timer, now));
  const running = timers.filter((timer) => !done.includes(timer));
  return (
    <>
      {done.length > 0 ? (
        <div className="cook-alerts">
          {done.map((timer) => (
            <div key={timer.id} role="alert" className="cook-alert">
              <p className="cook-alert__text">
                Timer done: {timer.label} — Step {timer.step}
              </p>
              <button type="button" className="button" onClick={() => onDismiss(timer.id)}>
                Dismiss
              </button>
            </div>
          ))}
        </div>
      ) : null}
      {running.length > 0 ? (
        <section className="cook-timers" aria-labelledby="cook-timers-heading">
          <h2 id="cook-timers-heading" className="cook-timers__heading">
            Timers
          </h2>
          <ul className="cook-timers__list">
            {running.map((timer) => {
              const name = `${timer.label} — Step ${timer.step}`;
              const paused = timer.pausedLeft !== null;
              return (
                <li key={timer.id} className={paused ? "cook-timer is-paused" : "cook-timer"}>
                  <span className="cook-timer__label">
                    {name}
                    {paused ? <span className="cook-timer__state"> (paused)</span> : null}
                  </span>
                  <span className="cook-timer__left" role="timer" aria-label={`${name}: time left`}>
                    {formatClock(timeLeft(timer, now))}
                  </span>
                  <button
                    type="button"
                    className="button button--ghost button--small"
                    aria-label={`${paused ? "Resume" : "Pause"} timer ${name}`}
                    onClick={() => (paused ? resume(timer.id) : pause(timer.id))}
                  >
                    {paused ? "Resume" : "Pause"}
                  </button>
                  <button type="button" className="button button--ghost button--small" aria-label={`Cancel timer ${name}`} onClick={() => onCancel(timer.id)}>
                    Cancel
                  </button>
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}
    </>
  );
}
