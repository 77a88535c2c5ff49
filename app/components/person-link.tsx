import clsx from "clsx";

import { paths } from "~/lib/paths";

import { Avatar } from "./avatar";
import { Link } from "./link";

/** A person as a link to their profile: picture, username and name (likes, follow lists, search). */
export function PersonLink({
  person,
  size = 40,
  className,
}: {
  person: { id: string; username: string; name: string; profile: string };
  size?: number;
  className?: string;
}) {
  return (
    <Link to={paths.profile(person.id)} className={clsx("person-link", className)}>
      <Avatar src={person.profile} size={size} />
      <span className="person-link__names">
        <span className="person-link__username">{person.username}</span>
        <span className="person-link__name">{person.name}</span>
      </span>
    </Link>
  );
}
