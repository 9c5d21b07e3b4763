// The web client's user interface (filled in below).
export const version = 1;
