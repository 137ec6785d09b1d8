const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/** Whether a Content-Type header names JSON (`application/json` or a `+json` type), parameters aside. */
export function isJsonMediaType(contentType: string | null | undefined): boolean {
  const mediaType = (contentType ?? "").split(";")[0]?.trim() ?? "";
  return JSON_MEDIA_TYPE.test(mediaType);
}

export const SEND_JSON = "Send a JSON body with Content-Type: application/json.";
