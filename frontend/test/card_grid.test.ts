import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { drawTurn } from "../src/card_grid";

const FRAME_MS = 16;

describe("drawTurn", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) =>
      setTimeout(() => callback(performance.now()), FRAME_MS),
    );
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("lets the first card draw at once, then one card per frame, after it, in the order they asked", async () => {
    const drawn: number[] = [];
    for (const card of [1, 2, 3]) void drawTurn().then(() => drawn.push(card));
    await vi.advanceTimersByTimeAsync(0);
    expect(drawn).toEqual([1]);
    await vi.advanceTimersByTimeAsync(FRAME_MS - 1);
    expect(drawn).toEqual([1]);
    await vi.advanceTimersByTimeAsync(FRAME_MS);
    expect(drawn).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(FRAME_MS);
    expect(drawn).toEqual([1, 2, 3]);
    // A frame with no card waiting ends the turns: the next card draws at once again.
    await vi.advanceTimersByTimeAsync(FRAME_MS + 1);
    void drawTurn().then(() => drawn.push(4));
    await vi.advanceTimersByTimeAsync(0);
    expect(drawn).toEqual([1, 2, 3, 4]);
  });
});
