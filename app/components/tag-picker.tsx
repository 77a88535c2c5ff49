import { useState } from "react";

import { MAX_PROFILE_TAGS, TAG_GROUPS, TAG_LIMIT_MESSAGE } from "~/lib/tags";

/**
 * The tag catalogue as checkboxes styled as chips. The server enforces the limit of three;
 * with JavaScript a fourth tick is undone at once and the limit message shown.
 */
export function TagPicker({ selected, name = "tags" }: { selected: readonly string[]; name?: string }) {
  const [limitHit, setLimitHit] = useState(false);
  return (
    <div className="tag-picker">
      {TAG_GROUPS.map((group) => (
        <fieldset key={group.title} className="tag-picker__group">
          <legend>{group.title}</legend>
          <div className="chips">
            {group.tags.map((tag) => (
              <label key={tag} className="chip chip--toggle">
                <input
                  type="checkbox"
                  name={name}
                  value={tag}
                  defaultChecked={selected.includes(tag)}
                  onChange={(event) => {
                    const form = event.currentTarget.form;
                    const checked = form ? form.querySelectorAll(`input[name="${name}"]:checked`).length : 0;
                    if (event.currentTarget.checked && checked > MAX_PROFILE_TAGS) {
                      event.currentTarget.checked = false;
                      setLimitHit(true);
                    } else {
                      setLimitHit(false);
                    }
                  }}
                />
                <span>{tag}</span>
              </label>
            ))}
          </div>
        </fieldset>
      ))}
      {limitHit ? (
        <p className="form-alert" role="alert">
          {TAG_LIMIT_MESSAGE}
        </p>
      ) : null}
    </div>
  );
}
