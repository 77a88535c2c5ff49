import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

/**
 * A real SMTP server for tests (the Nodemailer project's smtp-server): the app talks SMTP to it
 * over a local port, and every mail it accepts is parsed (mailparser) into `inbox`. `refuse`
 * makes it answer every message with a permanent error, `stall` makes it never answer one (a
 * server that times out).
 */
export interface TestMailServer {
  url: string;
  inbox: ParsedMail[];
  refuse: boolean;
  stall: boolean;
  /** The first mail to `to` (whose subject matches) that arrives, waiting up to `timeoutMs`. */
  waitFor(to: string, subject?: RegExp, timeoutMs?: number): Promise<ParsedMail>;
  /** Mails to `to` received so far. */
  to(to: string): ParsedMail[];
  stop(): Promise<void>;
}

export async function startMailServer(): Promise<TestMailServer> {
  const inbox: ParsedMail[] = [];
  const state = { refuse: false, stall: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      if (state.stall) {
        stream.resume();
        return; // never answers: the sender's socket timeout decides
      }
      simpleParser(stream)
        .then((mail) => {
          if (state.refuse) return callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }));
          inbox.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as { port: number };
  const addressedTo = (mail: ParsedMail, to: string) => {
    const list = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
    return list.some((group) => group.value.some((entry) => entry.address?.toLowerCase() === to.toLowerCase()));
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    inbox,
    get refuse() {
      return state.refuse;
    },
    set refuse(value: boolean) {
      state.refuse = value;
    },
    get stall() {
      return state.stall;
    },
    set stall(value: boolean) {
      state.stall = value;
    },
    to: (to) => inbox.filter((mail) => addressedTo(mail, to)),
    async waitFor(to, subject, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = inbox.find((mail) => addressedTo(mail, to) && (!subject || subject.test(mail.subject ?? "")));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to}${subject ? ` matching ${subject}` : ""} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a mail's text part that starts with `prefix`. */
export function linkIn(mail: ParsedMail, prefix: string): string {
  const found = (mail.text ?? "").split(/\s+/).find((word) => word.startsWith(prefix));
  if (!found) throw new Error(`no link starting with ${prefix} in: ${mail.text}`);
  return found;
}
