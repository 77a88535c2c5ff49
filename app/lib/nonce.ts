import { createContext, useContext } from "react";

// The per-request CSP nonce (entry.server.tsx) for Remix's inline scripts. In the browser it
// is empty: browsers hide nonce attributes from scripts, and hydration needs none.
export const NonceContext = createContext<string | undefined>(undefined);

export const useNonce = () => useContext(NonceContext);
