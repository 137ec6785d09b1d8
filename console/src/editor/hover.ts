// The hover card: the type signature as TypeScript prints it, then its documentation.
import type { HoverReply } from "./ts-protocol";

export function renderHover(info: unknown): { dom: HTMLElement } {
  const reply = info as HoverReply;
  const dom = document.createElement("div");
  dom.className = "cm-ts-hover";
  const signature = dom.appendChild(document.createElement("pre"));
  for (const part of reply.quickInfo.displayParts) {
    const span = signature.appendChild(document.createElement("span"));
    span.className = `quick-info-${part.kind}`;
    span.textContent = part.text;
  }
  const doc = reply.quickInfo.documentation.map((p) => p.text).join("");
  if (doc) {
    const p = dom.appendChild(document.createElement("p"));
    p.textContent = doc;
  }
  return { dom };
}
