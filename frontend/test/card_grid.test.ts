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

  it("lets one card draw per frame, after the frame, in the order they asked", async () => {
    const drawn: number[] = [];
    for (const card of [1, 2, 3]) void drawTurn().then(() => drawn.push(card));
    await vi.advanceTimersByTimeAsync(FRAME_MS - 1);
    expect(drawn).toEqual([]);
    await vi.advanceTimersByTimeAsync(FRAME_MS);
    expect(drawn).toEqual([1]);
    await vi.advanceTimersByTimeAsync(FRAME_MS);
    expect(drawn).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(FRAME_MS);
    expect(drawn).toEqual([1, 2, 3]);
    // Nothing waiting: a later card waits for the next frame only.
    void drawTurn().then(() => drawn.push(4));
    await vi.advanceTimersByTimeAsync(FRAME_MS + 1);
    expect(drawn).toEqual([1, 2, 3, 4]);
  });
});
