// Small interactions (like, save, comment, follow, the shopping list) post to one action from many
// pages. A post sent by the page's script carries this field and gets data back; a plain post
// (no JavaScript, or a press before the script runs) has none and is redirected to its page
// (app/server/http/interaction.server.ts).
export const FETCHER_FIELD = "_fetcher";
