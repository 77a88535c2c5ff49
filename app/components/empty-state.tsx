import { Link } from "./link";

/**
 * What a list shows when it has nothing yet: what is missing, a line on how it fills up, and a
 * button to somewhere useful.
 */
export function EmptyState({ title, text, action }: { title: string; text: string; action?: { to: string; label: string } }) {
  return (
    <div className="empty-state">
      <p className="empty-state__title">{title}</p>
      <p className="empty-state__text">{text}</p>
      {action ? (
        <Link to={action.to} className="button">
          {action.label}
        </Link>
      ) : null}
    </div>
  );
}
