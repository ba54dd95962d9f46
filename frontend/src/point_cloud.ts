// A WebGL scatter of up to a few hundred thousand points in 2-D or 3-D: the points and their colours go to the GPU
// once; turning the cloud only changes two angles, so dragging redraws at once at any size.

const VERTEX_SHADER = `#version 300 es
in vec3 position;
in vec3 colour;
uniform float yaw;
uniform float pitch;
uniform float pointSize;
out vec3 pointColour;
void main() {
  float x = position.x * cos(yaw) + position.z * sin(yaw);
  float z = -position.x * sin(yaw) + position.z * cos(yaw);
  float y = position.y * cos(pitch) - z * sin(pitch);
  float depth = position.y * sin(pitch) + z * cos(pitch);
  // Near points (larger depth) win the depth test.
  gl_Position = vec4(x, y, -depth * 0.5, 1.0);
  gl_PointSize = pointSize;
  pointColour = colour;
}`;

const FRAGMENT_SHADER = `#version 300 es
precision mediump float;
in vec3 pointColour;
out vec4 fragColour;
void main() {
  vec2 offset = gl_PointCoord - vec2(0.5);
  if (dot(offset, offset) > 0.25) discard;
  fragColour = vec4(pointColour, 1.0);
}`;

export class PointCloud {
  private readonly gl: WebGL2RenderingContext;
  private readonly program: WebGLProgram;
  private readonly positions: WebGLBuffer;
  private readonly colours: WebGLBuffer;
  private count = 0;

  /** Throws when the browser has no WebGL 2. */
  constructor(canvas: HTMLCanvasElement) {
    const gl = canvas.getContext("webgl2", { antialias: true });
    if (!gl) throw new Error("This browser has no WebGL 2: the embeddings cannot be drawn.");
    this.gl = gl;
    this.program = gl.createProgram()!;
    for (const [type, source] of [
      [gl.VERTEX_SHADER, VERTEX_SHADER],
      [gl.FRAGMENT_SHADER, FRAGMENT_SHADER],
    ] as const) {
      const shader = gl.createShader(type)!;
      gl.shaderSource(shader, source);
      gl.compileShader(shader);
      gl.attachShader(this.program, shader);
    }
    gl.linkProgram(this.program);
    if (!gl.getProgramParameter(this.program, gl.LINK_STATUS)) {
      throw new Error(`WebGL: ${gl.getProgramInfoLog(this.program) ?? "the point shader did not link"}`);
    }
    this.positions = gl.createBuffer()!;
    this.colours = gl.createBuffer()!;
  }

  /** Points as x, y, z triples within [-1, 1] (z 0 for 2-D); colours as r, g, b triples within [0, 1]. */
  setPoints(positions: Float32Array, colours: Float32Array): void {
    const gl = this.gl;
    this.count = positions.length / 3;
    for (const [buffer, data, name] of [
      [this.positions, positions, "position"],
      [this.colours, colours, "colour"],
    ] as const) {
      gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
      gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
      const location = gl.getAttribLocation(this.program, name);
      gl.enableVertexAttribArray(location);
      gl.vertexAttribPointer(location, 3, gl.FLOAT, false, 0, 0);
    }
  }

  /** The cloud turned by yaw and pitch; the chosen point (if any) drawn larger on top. */
  draw(yaw: number, pitch: number, pointSize: number, chosen: number): void {
    const gl = this.gl;
    gl.viewport(0, 0, gl.drawingBufferWidth, gl.drawingBufferHeight);
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.useProgram(this.program);
    gl.uniform1f(gl.getUniformLocation(this.program, "yaw"), yaw);
    gl.uniform1f(gl.getUniformLocation(this.program, "pitch"), pitch);
    const size = gl.getUniformLocation(this.program, "pointSize");
    gl.uniform1f(size, pointSize);
    gl.drawArrays(gl.POINTS, 0, this.count);
    if (chosen >= 0 && chosen < this.count) {
      gl.disable(gl.DEPTH_TEST);
      gl.uniform1f(size, pointSize * 2.5);
      gl.drawArrays(gl.POINTS, chosen, 1);
    }
  }
}
