// Text put into HTML the server writes by hand (an early refusal's page, mail, a federated Note):
// every character that could open markup or end an attribute, as a numeric reference.

/** `text` safe inside HTML elements and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
