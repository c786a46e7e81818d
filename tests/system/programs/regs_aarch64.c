/*
 * regs_aarch64.c — for aarch64 (run under qemu-user, which writes the core):
 * x19-x28 hold known values when it loads from address 0.
 */
int
main(void)
{
	__asm__ volatile("movz x19, #0x1919\n movz x20, #0x2020\n movz x21, #0x2121\n movz x22, #0x2222\n"
	                 "movz x28, #0x2828\n mov x0, xzr\n ldr x1, [x0]\n" ::: "x0", "x1", "x19", "x20", "x21",
	                 "x22", "x28", "memory");
	return 0;
}
