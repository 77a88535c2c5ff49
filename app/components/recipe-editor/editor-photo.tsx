import { useEffect, useId, useRef, useState } from "react";

import { downsizeImage } from "~/lib/image-downsize";
import { imageSrcSet } from "~/lib/photos";
import { UPLOAD_LIMITS, UPLOAD_MESSAGES } from "~/lib/upload-limits";
import { FIELD } from "~/lib/recipe-form";

import { RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";


const NOT_AN_IMAGE = "Please choose an image file.";

interface RecipePhotoFieldProps {
  /** The recipe's stored photo (edit mode), or null. */
  currentPhoto: string | null;
  /** An upload kept from an earlier no-JS submission of this draft. */
  pendingPhoto: string | null;
  error: string | null | undefined;
  photoNotKept: boolean;
  onBusyChange: (busy: boolean) => void;
  autoFocus?: boolean;
}

/**
 * `Recipe Photo`: a file picker with a preview. Without JavaScript the chosen file simply goes
 * with the form. With JavaScript the picture is downsized in the browser first (the input's file
 * is swapped for the smaller copy) and previewed at once.
 */
export function RecipePhotoField({ currentPhoto, pendingPhoto, error, photoNotKept, onBusyChange, autoFocus }: RecipePhotoFieldProps) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const pick = useRef(0);
  const [preview, setPreview] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [clientError, setClientError] = useState<string | null>(null);
  const [hasFile, setHasFile] = useState(false);
  // A server message about a photo stops applying once another photo is chosen.
  const [serverError, setServerError] = useState({ error, dismissed: false });
  if (serverError.error !== error) setServerError({ error, dismissed: false });

  useEffect(() => {
    setHasFile(Boolean(inputRef.current?.files?.length));
  }, []);
  useEffect(() => {
    return () => {
      if (preview) URL.revokeObjectURL(preview);
    };
  }, [preview]);

  async function handleChange(event: React.ChangeEvent<HTMLInputElement>) {
    const input = event.currentTarget;
    const file = input.files?.[0];
    const ticket = (pick.current += 1);
    setClientError(null);
    setServerError((state) => ({ ...state, dismissed: true }));
    const refusePhoto = (message: string) => {
      input.value = "";
      setClientError(message);
      setPreview(null);
      setHasFile(false);
    };
    if (!file) {
      setPreview(null);
      setHasFile(false);
      return;
    }
    if (file.type && !file.type.startsWith("image/")) return refusePhoto(NOT_AN_IMAGE);
    onBusyChange(true);
    setStatus("Preparing the photo…");
    try {
      const smaller = await downsizeImage(file);
      if (ticket !== pick.current) return;
      let chosen: File = file;
      if (smaller && typeof DataTransfer !== "undefined") {
        const transfer = new DataTransfer();
        transfer.items.add(smaller);
        input.files = transfer.files;
        chosen = smaller;
      }
      if (chosen.size > UPLOAD_LIMITS.fileBytes) return refusePhoto(UPLOAD_MESSAGES.fileTooLarge);
      setPreview(URL.createObjectURL(chosen));
      setHasFile(true);
    } finally {
      if (ticket === pick.current) {
        setStatus(null);
        onBusyChange(false);
      }
    }
  }

  const shown = preview ?? pendingPhoto ?? currentPhoto ?? RECIPE_PLACEHOLDER_IMAGE;
  const message = clientError ?? (serverError.dismissed ? null : error) ?? null;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  return (
    <div className="field editor-photo">
      <label htmlFor={id}>Recipe Photo</label>
      <div className="editor-photo__body">
        <img
          className="editor-photo__preview"
          src={shown}
          srcSet={preview ? undefined : imageSrcSet(shown)}
          sizes="(min-width: 768px) 20rem, 100vw"
          alt="Recipe photo preview"
          width={400}
          height={300}
          decoding="async"
        />
        <div className="editor-photo__controls">
          <input
            ref={inputRef}
            id={id}
            type="file"
            name={FIELD.photo}
            accept="image/*"
            onChange={handleChange}
            autoFocus={autoFocus}
            aria-invalid={message ? true : undefined}
            aria-describedby={[message ? errorId : null, hintId].filter(Boolean).join(" ")}
          />
          <p className="field__hint" id={hintId}>
            {pendingPhoto && !preview
              ? "Your new photo is ready and will be saved with the recipe."
              : "JPEG, PNG, WebP or GIF, up to 10 MB. It is resized to 800 px."}
          </p>
          {status ? (
            <p className="field__hint" role="status">
              {status}
            </p>
          ) : null}
          {photoNotKept && !hasFile && !message ? (
            <p className="field__hint editor-photo__again" role="status">
              The photo you chose was not saved. Please choose it again.
            </p>
          ) : null}
          {message ? (
            <p className="field__error" id={errorId} role="alert">
              {message}
            </p>
          ) : null}
        </div>
      </div>
      {pendingPhoto ? <input type="hidden" name={FIELD.pendingPhoto} value={pendingPhoto} /> : null}
    </div>
  );
}
