// SPDX-License-Identifier: MPL-2.0 OR GPL-2.0
/*
 * lmsplat: a test module that makes the kernel print one of its reports,
 * so that the klog parser is tested on what a real kernel prints (see
 * capture.sh). Loaded with what=warn|bug|oops|softlockup|hungtask.
 * Never load it on a machine that matters.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>

static char *what = "warn";
module_param(what, charp, 0444);
MODULE_PARM_DESC(what, "warn, bug, oops, softlockup or hungtask");

static int spin_seconds = 6;
module_param(spin_seconds, int, 0444);

static int lmsplat_spin(void *unused)
{
	/* the CPU is held with preemption off: the soft lockup detector and
	 * RCU both notice */
	preempt_disable();
	mdelay(spin_seconds * 1000);
	preempt_enable();
	return 0;
}

static int lmsplat_hang(void *unused)
{
	/* uninterruptible sleep past the hung task timeout */
	set_current_state(TASK_UNINTERRUPTIBLE);
	schedule_timeout(spin_seconds * HZ);
	return 0;
}

/* a pointer the compiler cannot see is NULL, so the store really runs */
static unsigned long ptr;
module_param(ptr, ulong, 0444);

static int __init lmsplat_init(void)
{
	if (!strcmp(what, "warn")) {
		WARN_ON(1);
	} else if (!strcmp(what, "bug")) {
		BUG();
	} else if (!strcmp(what, "oops")) {
		WRITE_ONCE(*(int *)ptr, 42);
	} else if (!strcmp(what, "softlockup")) {
		kthread_run(lmsplat_spin, NULL, "lmsplat-spin");
	} else if (!strcmp(what, "hungtask")) {
		kthread_run(lmsplat_hang, NULL, "lmsplat-hang");
	} else {
		pr_err("lmsplat: unknown what=%s\n", what);
		return -EINVAL;
	}
	return 0;
}

static void __exit lmsplat_exit(void)
{
}

module_init(lmsplat_init);
module_exit(lmsplat_exit);
MODULE_LICENSE("Dual MPL/GPL");
MODULE_DESCRIPTION("makes the kernel print a report, for parser tests");
