// `holodeck.inlayHints.enabled: false` hides the server's result hints on the client side
// (the server has no such setting), as languageclient's `middleware.provideInlayHints`.
// The setting is read per request, so toggling it applies at the next hint refresh.

export function filterInlayHints<H>(enabled: boolean, provide: () => H): H | never[] {
  return enabled ? provide() : [];
}
