/**
 * The client's version: the mnemo server release it is made with and
 * tested against (clients are versioned with the server).
 */
export const VERSION = "0.1.0";
