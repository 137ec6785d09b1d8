// A target's deploy pointers as every route answers them.
import type { Pointer } from "../../../shared/lifecycle/pointers";

export const pointerView = (pointer: Pointer | null) =>
  pointer === null ? null : { revisionId: pointer.revisionId, setAt: pointer.setAt };

export const deploymentsView = (pointers: { active: Pointer | null; shadow: Pointer | null }) => ({
  active: pointerView(pointers.active),
  shadow: pointerView(pointers.shadow),
});
