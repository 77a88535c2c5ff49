import { useEffect, useId, useState } from "react";

import { useHydrated } from "~/lib/hooks";

// "Keep screen on" for cook mode (docs/rules.md#cook-mode): the Screen Wake Lock keeps a phone's
// screen from dimming while someone cooks with messy hands. On by default where the browser has
// it; the browser lets go of the lock whenever the page is hidden, so it is asked for again when
// the page is shown. Without JavaScript nothing is shown: nothing could keep the screen on.

type Support = "unknown" | "yes" | "no";

export function KeepScreenOn() {
  const hydrated = useHydrated();
  const id = useId();
  const [support, setSupport] = useState<Support>("unknown");
  const [on, setOn] = useState(true);
  const [refused, setRefused] = useState(false);

  useEffect(() => {
    setSupport("wakeLock" in navigator && typeof navigator.wakeLock?.request === "function" ? "yes" : "no");
  }, []);

  useEffect(() => {
    if (support !== "yes" || !on) return;
    let live = true;
    let lock: WakeLockSentinel | null = null;
    const acquire = async () => {
      if (document.visibilityState !== "visible" || (lock && !lock.released)) return;
      try {
        const got = await navigator.wakeLock.request("screen");
        if (!live) {
          got.release().catch(() => {});
          return;
        }
        lock = got;
        setRefused(false);
      } catch {
        // Refused (battery saver, a policy, a page not in view): said below, the switch stays as chosen.
        if (live) setRefused(true);
      }
    };
    void acquire();
    const onVisibility = () => {
      if (document.visibilityState === "visible") void acquire();
    };
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      live = false;
      document.removeEventListener("visibilitychange", onVisibility);
      lock?.release().catch(() => {});
      lock = null;
    };
  }, [support, on]);

  if (!hydrated || support === "unknown") return null;
  if (support === "no") return <p className="cook-wake cook-wake--none">This browser cannot keep the screen on.</p>;
  return (
    <div className="cook-wake">
      <label htmlFor={id} className="cook-wake__switch">
        <input id={id} type="checkbox" role="switch" checked={on} onChange={(event) => setOn(event.currentTarget.checked)} />
        Keep screen on
      </label>
      {on && refused ? <p className="cook-wake__note">The screen could not be kept on just now.</p> : null}
    </div>
  );
}
