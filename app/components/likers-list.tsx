import { PersonLink } from "./person-link";

/** The people who liked a post, each linking to their profile ('No likes yet' when empty: docs/rules.md#home-and-post-cards). */
export function LikersList({ likers }: { likers: { id: string; username: string; name: string; profile: string }[] }) {
  if (likers.length === 0) return <p className="empty-state">No likes yet</p>;
  return (
    <ul className="people-list">
      {likers.map((liker) => (
        <li key={liker.id}>
          <PersonLink person={liker} />
        </li>
      ))}
    </ul>
  );
}
