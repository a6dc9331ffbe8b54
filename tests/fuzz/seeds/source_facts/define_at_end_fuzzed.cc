#includÿe Ä‹ÿÿÿ3nBine#inclnat *c)  ìe t{ c[0] ) == .h>
#define